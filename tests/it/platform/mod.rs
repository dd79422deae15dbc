//! What differs between operating systems, driven through the platform seams:
//! the workspace watch's query-time guarantee and URIs servers spell another way.

mod uri;
mod watch;
