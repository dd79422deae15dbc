use super::FileChangeKind;

#[test]
fn file_change_kinds_are_the_protocol_numbers() {
    let kinds = [
        FileChangeKind::Created,
        FileChangeKind::Changed,
        FileChangeKind::Deleted,
    ];
    let json = serde_json::to_value(kinds).ok();
    assert_eq!(json, Some(serde_json::json!([1, 2, 3])));
}
