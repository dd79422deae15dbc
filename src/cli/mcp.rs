//! `squiggle mcp` (placeholder until its change lands).

#[derive(clap::Args, Debug, Clone)]
pub struct Args {}

pub async fn run(_args: Args) -> u8 {
    eprintln!("squiggle mcp: not built yet");
    2
}
