//! The fake's timer queue: actions due at an instant, run in deadline order.
//!
//! The main loop waits on the message channel with a timeout until the earliest deadline,
//! so timing is driven by events and deadlines, never by sleeping a fixed amount.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

struct Entry<A> {
    at: Instant,
    /// Insertion order, so actions due at the same instant run in the order scheduled.
    seq: u64,
    action: A,
}

impl<A> PartialEq for Entry<A> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<A> Eq for Entry<A> {}

impl<A> PartialOrd for Entry<A> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<A> Ord for Entry<A> {
    /// Reversed, so the max-heap pops the earliest entry.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

pub struct Scheduler<A> {
    heap: BinaryHeap<Entry<A>>,
    next_seq: u64,
}

impl<A> Scheduler<A> {
    pub fn new() -> Self {
        Scheduler {
            heap: BinaryHeap::new(),
            next_seq: 0,
        }
    }

    pub fn after(&mut self, delay_ms: u64, action: A) {
        self.at(Instant::now() + Duration::from_millis(delay_ms), action);
    }

    pub fn at(&mut self, at: Instant, action: A) {
        self.heap.push(Entry {
            at,
            seq: self.next_seq,
            action,
        });
        self.next_seq += 1;
    }

    pub fn next_deadline(&self) -> Option<Instant> {
        self.heap.peek().map(|e| e.at)
    }

    /// Removes and returns the earliest action if it is due by `now`.
    pub fn pop_due(&mut self, now: Instant) -> Option<A> {
        if self.heap.peek()?.at > now {
            return None;
        }
        self.heap.pop().map(|e| e.action)
    }

    pub fn clear(&mut self) {
        self.heap.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_deadline_then_insertion_order() {
        let mut s = Scheduler::new();
        let now = Instant::now();
        s.at(now + Duration::from_millis(5), "late");
        s.at(now, "first");
        s.at(now, "second");
        assert_eq!(s.pop_due(now), Some("first"));
        assert_eq!(s.pop_due(now), Some("second"));
        assert_eq!(s.pop_due(now), None);
        assert_eq!(s.pop_due(now + Duration::from_millis(5)), Some("late"));
    }
}
