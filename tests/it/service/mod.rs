//! `squiggle serve`, the JSON-RPC service: every method over stdio, and an
//! off-the-shelf client (npm `vscode-jsonrpc`) speaking its framing.

mod delete;
mod node;
mod rpc;
mod wire;
