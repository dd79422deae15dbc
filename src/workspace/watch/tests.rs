//! The watch reports what changed, once, on every platform's backend.

use super::*;

/// Every way of keeping the contract, so that each is tested on Linux:
/// the barrier (Linux, macOS), the stamps (Windows, macOS), both.
const WAYS: [WatchOptions; 3] = [
    WatchOptions {
        barrier: true,
        stamps: false,
    },
    WatchOptions {
        barrier: false,
        stamps: true,
    },
    WatchOptions {
        barrier: true,
        stamps: true,
    },
];

/// Every way the platform's events can keep: a barrier proves nothing
/// where events arrive out of order (`TRAITS.ordered`: Windows), so there
/// a late event of a drained change may still come, as without one.
#[test]
fn sees_writes_creations_deletions_and_new_directories() {
    for way in WAYS {
        if way.barrier && !crate::platform::watch::TRAITS.ordered {
            continue;
        }
        sees_every_kind_of_change(way);
    }
}

fn sees_every_kind_of_change(way: WatchOptions) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(root.join("src")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(root.join("node_modules/x")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("src/lib.ts"), "a").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("gone.ts"), "a").unwrap_or_else(|e| panic!("{e}"));
    let mut watch = DiskWatch::start_with(&root, way).unwrap_or_else(|e| panic!("{e}"));
    assert!(watch.drain().is_empty(), "nothing changed yet");

    std::fs::write(root.join("src/lib.ts"), "b").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("new.ts"), "n").unwrap_or_else(|e| panic!("{e}"));
    std::fs::remove_file(root.join("gone.ts")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("node_modules/x/i.js"), "i").unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(root.join("pkg")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("pkg/m.ts"), "m").unwrap_or_else(|e| panic!("{e}"));
    let changes = watch.drain();
    let expected = vec![
        (root.join("gone.ts"), DiskChange::Deleted),
        (root.join("new.ts"), DiskChange::Created),
        (root.join("pkg/m.ts"), DiskChange::Created),
        (root.join("src/lib.ts"), DiskChange::Changed),
    ];
    assert_eq!(changes.clone().into_iter().collect::<Vec<_>>(), expected);
    // Drained: the next look finds nothing new. (Without the barrier, the
    // event of a change the stamps reported may arrive late and report it
    // again: never a change that did not happen.)
    let again = watch.drain();
    assert!(
        again.is_empty() || !way.barrier && again.keys().all(|p| changes.contains_key(p)),
        "{again:?}"
    );
    // The new directory is watched from now on.
    std::fs::write(root.join("pkg/m.ts"), "m2").unwrap_or_else(|e| panic!("{e}"));
    let changes = watch.drain();
    assert_eq!(
        changes.get(&root.join("pkg/m.ts")),
        Some(&DiskChange::Changed)
    );
    if way.barrier {
        assert_eq!(changes.len(), 1, "{changes:?}");
    }
}

/// The stamp check alone, as on a platform whose events come late: a
/// file written, one deleted, one created and a new directory's files are
/// found by listing the directories again, each once.
#[test]
fn stamps_find_what_no_event_reported() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(root.join("src")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("src/a.py"), "a").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("b.py"), "b").unwrap_or_else(|e| panic!("{e}"));
    let mut stamps = Stamps::default();
    let watched: HashSet<PathBuf> = [root.clone(), root.join("src")].into();
    for dir in &watched {
        let entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{e}"))
            .flatten()
            .collect();
        stamps.record(dir, &entries);
    }
    assert_eq!(stamps.len(), 2);
    let look = |stamps: &mut Stamps| {
        let (mut seen, mut new_dirs) = (BTreeMap::new(), Vec::new());
        stamps.check(&watched, &mut seen, &mut new_dirs);
        (seen.into_iter().collect::<Vec<_>>(), new_dirs)
    };
    assert_eq!(look(&mut stamps), (vec![], vec![]), "nothing changed yet");

    std::fs::write(root.join("src/a.py"), "a longer text").unwrap_or_else(|e| panic!("{e}"));
    std::fs::remove_file(root.join("b.py")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("c.py"), "c").unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(root.join("pkg")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(root.join("node_modules")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        look(&mut stamps),
        (
            vec![
                (root.join("b.py"), DiskChange::Deleted),
                (root.join("c.py"), DiskChange::Created),
                (root.join("src/a.py"), DiskChange::Changed),
            ],
            vec![root.join("pkg")]
        )
    );
    assert_eq!(stamps.len(), 2, "b.py gone, c.py new");
    assert_eq!(look(&mut stamps).0, vec![], "reported once");
}

/// A file deleted, drained, and created again before its deletion's event
/// arrives (ReadDirectoryChangesW delivers late; wine's often a drain
/// late): the next drain says it was created, as the disk shows, not
/// deleted, as the late event says.
#[test]
fn a_late_deletion_of_a_file_created_again_reports_it_created() {
    for way in WAYS {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
        let file = root.join("app.py");
        std::fs::write(&file, "a").unwrap_or_else(|e| panic!("{e}"));
        let mut watch = DiskWatch::start_with(&root, way).unwrap_or_else(|e| panic!("{e}"));
        std::fs::remove_file(&file).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            watch.drain().get(&file),
            Some(&DiskChange::Deleted),
            "{way:?}"
        );
        std::fs::write(&file, "again").unwrap_or_else(|e| panic!("{e}"));
        let late = notify::Event::new(notify::EventKind::Remove(notify::event::RemoveKind::File));
        watch.inbox.push(Ok(late.clone().add_path(file.clone())));
        assert_eq!(
            watch.drain().get(&file),
            Some(&DiskChange::Created),
            "{way:?}"
        );
        // The late deletion, then the new file's write, in one drain: it was
        // created again.
        watch.inbox.push(Ok(late.add_path(file.clone())));
        let written = notify::event::ModifyKind::Data(notify::event::DataChange::Content);
        let written = notify::Event::new(notify::EventKind::Modify(written));
        watch.inbox.push(Ok(written.add_path(file.clone())));
        assert_eq!(
            watch.drain().get(&file),
            Some(&DiskChange::Created),
            "{way:?}"
        );
    }
}

/// Past the bound the stamps say they are incomplete, and so does the watch.
#[test]
fn stamps_past_the_bound_make_the_watch_incomplete() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for i in 0..10 {
        std::fs::write(dir.path().join(i.to_string()), "x").unwrap_or_else(|e| panic!("{e}"));
    }
    let entries: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .collect();
    let mut stamps = Stamps::default();
    for n in 0..=MAX_STAMPED / 10 {
        stamps.record(&dir.path().join(n.to_string()), &entries);
    }
    assert_eq!(stamps.len(), MAX_STAMPED);
    assert!(stamps.incomplete);
}

/// A barrier directory left by a process that is gone is removed when the
/// next watch starts; one of a live process is kept.
#[test]
fn barrier_directories_of_gone_processes_are_removed() {
    let base = std::env::temp_dir();
    let gone = base.join(format!("squiggle-watch-{}-0", u32::MAX - 7));
    let live = base.join(format!("squiggle-watch-{}-77", std::process::id()));
    for dir in [&gone, &live] {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
    }
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let watch = DiskWatch::start_with(
        root.path(),
        WatchOptions {
            barrier: true,
            stamps: false,
        },
    );
    assert!(watch.is_ok());
    assert!(!gone.exists(), "the orphan is still there");
    assert!(live.exists(), "a live process's directory was removed");
    let _ = std::fs::remove_dir_all(&live);
}
