//! A fix is a change like any write: the files that import the one it
//! changed are checked again, and what it broke there is reported.

use squiggle::config::Config;
use squiggle::engine::fixes::Which;

use super::auto::fake_with_fix;
use super::fixed;
use crate::support;
use crate::support::fake_server::FakeServer;

#[tokio::test]
async fn a_fix_checks_the_files_that_import_what_it_changed() {
    let dir = support::project(&[
        ("lib.fk", "let x = 1;\n"),
        ("app.fk", "import lib\n@error(app)\n"),
    ]);
    let lib = dir.path().join("lib.fk");
    let script = fake_with_fix(&lib, [0, 8, 0, 29], "2", "Fill in the thing");
    let mut config = Config::default();
    config
        .servers
        .insert("fake-a".into(), FakeServer::new(script).to_override());
    let engine = support::engine(dir.path(), config);
    support::edit_applied(&engine, &lib, "1;", "@error(missing thing);").await;

    let fixed = fixed(
        &engine,
        &lib,
        Which::At {
            line: 1,
            column: None,
        },
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(&lib).unwrap_or_default(),
        "let x = 2;\n"
    );
    assert!(
        fixed.outcomes.contains_key("app.fk"),
        "the fix did not check app.fk, which imports lib.fk: {:?}",
        fixed.outcomes
    );
    let app: Vec<_> = (fixed.diagnostics.iter())
        .filter(|d| d.diagnostic.file == "app.fk")
        .map(|d| d.diagnostic.message.as_str())
        .collect();
    assert_eq!(app, ["app"], "{}", fixed.text());
    engine.shutdown().await;
}
