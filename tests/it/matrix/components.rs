//! Components: a Vue single-file component checked by typescript-language-
//! server with the Vue plugin for TypeScript (the tsserver that checks the
//! component also checks the TypeScript that imports it), and a Svelte
//! component checked by svelte-language-server. Both fixtures use the
//! packages `scripts/install-servers.sh` put in `.tools/npm` (vue, svelte,
//! typescript, `@vue/typescript-plugin`) as their `node_modules`.

use crate::support;
use crate::support::matrix::*;

const COUNTER_VUE: &str = "src/Counter.vue";
const MAIN_TS: &str = "src/main.ts";
const TEXT: &str = "const text: string = label(count.value);";
const SIGNATURE: &str = "export function label(count: number): string {";

/// The fixture `name` with the pinned npm packages as its `node_modules`,
/// once `program` and `package` (in the same `node_modules`) are there.
fn with_packages(name: &str, program: &str, package: &str) -> Option<tempfile::TempDir> {
    let server = support::require_program(program)?;
    let modules = server.parent()?.parent()?.to_path_buf();
    let wanted = modules.join(package);
    support::require(
        wanted.is_dir().then_some(wanted),
        &format!("{package} (npm, in .tools/npm)"),
    )?;
    let dir = fixture(name);
    link_node_modules(dir.path(), &server);
    Some(dir)
}

#[tokio::test]
async fn vue_component_and_its_typescript_importer() {
    let Some(dir) = with_packages(
        "vue",
        "typescript-language-server",
        "@vue/typescript-plugin",
    ) else {
        return;
    };
    let engine = engine(dir.path(), &[]);
    let counter = path(&dir, COUNTER_VUE);
    assert_clean(&engine, &counter).await;

    let wrong = "const text: number = label(count.value);";
    let broken = edit(&engine, &counter, TEXT, wrong).await;
    assert_eq!(servers_of(&broken), ["typescript-language-server"]);
    assert_error(
        &broken,
        &Expect {
            file: COUNTER_VUE,
            line: 11,
            column: 7,
            code: Some("2322"),
            words: &["Type 'string' is not assignable to type 'number'"],
        },
    );
    let fixed = edit(&engine, &counter, wrong, TEXT).await;
    assert_fixed(&fixed, EDITED, "is not assignable");

    // A second parameter breaks the TypeScript file that imports `label`:
    // the component is written whole, as an agent writes a file.
    let widened = "export function label(count: number, unit: string): string {";
    let original = std::fs::read_to_string(&counter).unwrap_or_default();
    let written = original.replace(SIGNATURE, widened);
    let result = write(&engine, &counter, &written).await;
    let text = result.text();
    assert_row(
        &text,
        OTHER_FILES,
        &Expect {
            file: MAIN_TS,
            line: 3,
            column: 30,
            code: Some("2554"),
            words: &["Expected 2 arguments, but got 1"],
        },
    );
    let restored = write(&engine, &counter, &original).await;
    assert_fixed(&restored, WRITTEN, "Expected 2 arguments");
    engine.shutdown().await;
}

/// An expression in a component's template replaced and put back, as the
/// truth corpus's `vue-vitepress/wrong_literal/1` does: after the change
/// back sent incrementally, tsserver with the Vue plugin still answered with
/// the replaced expression's error, so the component is sent whole.
#[tokio::test]
async fn vue_template_edit_put_back_is_clean() {
    let Some(dir) = with_packages(
        "vue",
        "typescript-language-server",
        "@vue/typescript-plugin",
    ) else {
        return;
    };
    let engine = engine(dir.path(), &[]);
    let counter = path(&dir, COUNTER_VUE);
    assert_clean(&engine, &counter).await;
    let (condition, literal) = ("v-if=\"text && count\"", "v-if=1.5");
    let broken = edit(&engine, &counter, condition, literal).await;
    assert_error(
        &broken,
        &Expect {
            file: COUNTER_VUE,
            line: 16,
            column: 14,
            code: Some("2872"),
            words: &["always truthy"],
        },
    );
    let fixed = edit(&engine, &counter, literal, condition).await;
    assert_fixed(&fixed, EDITED, "always truthy");
    engine.shutdown().await;
}

#[tokio::test]
async fn svelte_language_server() {
    let Some(dir) = with_packages("svelte", "svelteserver", "svelte") else {
        return;
    };
    let engine = engine(dir.path(), &[]);
    let counter = path(&dir, "src/Counter.svelte");
    assert_clean(&engine, &counter).await;
    let text = "const text: string = `count";
    let wrong = "const text: number = `count";
    let broken = edit(&engine, &counter, text, wrong).await;
    assert_eq!(servers_of(&broken), ["svelte-language-server"]);
    assert_error(
        &broken,
        &Expect {
            file: "src/Counter.svelte",
            line: 5,
            column: 9,
            code: Some("2322"),
            words: &["Type 'string' is not assignable to type 'number'"],
        },
    );
    let fixed = edit(&engine, &counter, wrong, text).await;
    assert_fixed(&fixed, EDITED, "is not assignable");
    engine.shutdown().await;
}
