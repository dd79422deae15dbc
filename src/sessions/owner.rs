//! Who a session belongs to: the client that opened it — one JSON-RPC
//! connection of `squiggle serve` or the daemon, one MCP session of
//! `squiggle mcp --http`, the one client of `squiggle mcp` over stdio. Only
//! its owner may use a session; to everyone else it does not exist. An
//! owner is made fresh for each client and cannot be named from outside:
//! it is not on the wire.

use std::sync::atomic::{AtomicU64, Ordering};

/// One client's mark on the sessions it opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Owner(u64);

impl Owner {
    /// A mark no other client has.
    pub fn new() -> Owner {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Owner(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

impl Default for Owner {
    fn default() -> Owner {
        Owner::new()
    }
}

#[cfg(test)]
mod tests {
    use super::Owner;

    #[test]
    fn each_owner_is_its_own() {
        let (a, b) = (Owner::new(), Owner::new());
        assert_ne!(a, b);
        assert_eq!(a, a);
    }
}
