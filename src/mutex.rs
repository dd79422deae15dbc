//! The one way squiggle takes a `std::sync::Mutex`: every lock is held for a
//! few statements that leave the data consistent, so a poisoned lock (a
//! thread panicked while holding it) is recovered rather than spread.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, recovering the data if a panicking thread poisoned it: the
/// state behind every lock here stays consistent between statements.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
