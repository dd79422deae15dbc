// Drives `squiggle serve` with the real `vscode-jsonrpc` client, as an agent
// host written in Node would: StreamMessageReader/Writer over the child's
// stdio, every method once, results asserted.
//
// usage: node tests/clients/node/service.mjs <squiggle-binary> <workspace>
// The workspace's .squiggle.toml must configure the fake server for `.fk`
// files and hold a.fk with `@error(boom)`; run with NODE_PATH pointing at a
// node_modules that has vscode-jsonrpc.

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';

const require = createRequire(import.meta.url);
const rpc = require('vscode-jsonrpc/node');

const [bin, workspace] = process.argv.slice(2);
const child = spawn(bin, ['serve', '--trust-workspace', '--root', workspace], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const connection = rpc.createMessageConnection(
  new rpc.StreamMessageReader(child.stdout),
  new rpc.StreamMessageWriter(child.stdin),
);
const exited = new Promise((resolve) => child.on('exit', resolve));
connection.listen();

const call = (method, params) => connection.sendRequest(method, params);

const a = await call('lsp/checkFile', { filePath: 'a.fk' });
assert.equal(a.length, 1);
assert.equal(a[0].message, 'boom');
assert.equal(a[0].line, 1);
assert.equal(a[0].character, 1);

const some = await call('lsp/checkFiles', { filePaths: ['a.fk'] });
assert.deepEqual(Object.keys(some), ['a.fk']);

const all = await call('lsp/diagnostics', {});
assert.deepEqual(Object.keys(all), ['a.fk']);

const status = await call('lsp/status', {});
const fake = status.find((s) => s.id === 'fake');
assert.equal(fake.status, 'active');
assert.equal(fake.language, 'fake');
assert.equal(typeof fake.serverPid, 'number');

const edited = await call('squiggle/edit', {
  filePath: 'a.fk', oldString: '@error(boom)', newString: 'fine',
});
assert.equal(edited.classification, 'clean');

const written = await call('squiggle/write', { filePath: 'b.fk', content: '@error(written)\n' });
assert.equal(written.classification, 'new_errors');
assert.match(written.feedback, /ERROR \[1:1\] written/);

const patched = await call('squiggle/applyPatch', {
  patch: '*** Begin Patch\n*** Add File: c.fk\n+clean\n*** End Patch\n',
});
assert.equal(patched.message, 'Patch applied successfully.');

const rendered = await call('squiggle/render', { edited: [{ file: 'b.fk', diagnostics: written.diagnostics }] });
assert.match(rendered.text, /<diagnostics file="b.fk">/);

const checked = await call('squiggle/check', { filePaths: ['b.fk'] });
assert.equal(checked.diagnostics[0].message, 'written');

await assert.rejects(call('squiggle/edit', { filePath: 'a.fk', oldString: 'absent', newString: 'x' }),
  (e) => e.code === -32001);
await assert.rejects(call('lsp/checkFile', { filePath: 7 }),
  (e) => e.code === -32602 && e.message === 'filePath: expected a string');
await assert.rejects(call('no/such', {}), (e) => e.code === rpc.ErrorCodes.MethodNotFound);

assert.equal(await call('lsp/shutdown', {}), null);
const code = await exited;
assert.equal(code, 0);
connection.dispose();
console.log('service.mjs: ok');
