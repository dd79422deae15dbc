//! Listen mode (`--listen 127.0.0.1:PORT`): the fake as a server someone
//! else started, for squiggle to attach to (`connect`). It prints
//! `listening on ADDRESS` on stdout once bound (port 0 picks a free one),
//! then serves each connection with a fake of its own — this binary run
//! again on stdio with the same script, bytes copied both ways — until it is
//! killed. A connection that closes ends its fake; the listener runs on,
//! which is what a test of "squiggle never stops an attached server" needs;
//! it prints `connection closed: …` once that connection's fake has exited.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};

use anyhow::{Context, Result};

/// Binds `address` and serves connections forever; `rest` is passed to
/// each connection's fake (`--script PATH`, or nothing).
pub fn run(address: &str, rest: &[String]) -> Result<()> {
    let listener =
        TcpListener::bind(address).with_context(|| format!("cannot listen on {address}"))?;
    let bound = listener.local_addr().context("no local address")?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "listening on {bound}").and_then(|()| stdout.flush())?;
    let exe = std::env::current_exe().context("cannot find this executable")?;
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(stream) => stream,
            Err(err) => {
                eprintln!("squiggle-fake-lsp: accept failed: {err}");
                continue;
            }
        };
        let child = Command::new(&exe)
            .args(rest)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("cannot start a fake for a connection")?;
        serve(stream, child)?;
    }
    Ok(())
}

/// Copies the connection into the fake's stdin and its stdout back, each
/// way on a thread of its own; the fake is reaped once its output ends.
fn serve(stream: TcpStream, mut child: Child) -> Result<()> {
    let (Some(mut stdin), Some(mut stdout)) = (child.stdin.take(), child.stdout.take()) else {
        anyhow::bail!("the fake's stdio was not captured");
    };
    let mut from_client = stream.try_clone().context("cannot share the connection")?;
    let mut to_client = stream;
    std::thread::spawn(move || {
        let _ = copy(&mut from_client, &mut stdin);
        // Dropping stdin closes it: the fake sees end of input and leaves.
    });
    std::thread::spawn(move || {
        let _ = copy(&mut stdout, &mut to_client);
        let _ = to_client.shutdown(std::net::Shutdown::Both);
        // The event a test waits on: this connection's fake has read all
        // the client sent and logged it.
        match child.wait() {
            Ok(status) => println!("connection closed: the fake {status}"),
            Err(err) => println!("connection closed: waiting for the fake failed: {err}"),
        }
    });
    Ok(())
}

fn copy(from: &mut impl Read, to: &mut impl Write) -> std::io::Result<()> {
    let mut buf = [0u8; 8192];
    loop {
        let n = from.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        to.write_all(&buf[..n])?;
        to.flush()?;
    }
}
