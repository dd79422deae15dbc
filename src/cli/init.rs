//! `squiggle init` (placeholder until its change lands).

#[derive(clap::Args, Debug, Clone)]
pub struct Args {}

pub async fn run(_args: Args) -> u8 {
    eprintln!("squiggle init: not built yet");
    2
}
