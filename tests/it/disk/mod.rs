//! Files changed on disk by something other than squiggle: which changes
//! reach a server, and that every surface syncs them before the next query.

mod announce;
mod changes;
mod surfaces;
