//! Every rendered format, fixed by the files under `golden/`
//! (`SQUIGGLE_BLESS=1` rewrites them on purpose).

mod hook;
mod init;
mod render;
