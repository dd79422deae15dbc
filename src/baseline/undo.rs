//! The text before an edit, from the edit itself: an agent's `Edit` says
//! which string it replaced with which, so undoing it on the file as it is
//! now gives the file as it was right before — even when another agent has
//! changed another part of the file since, and whatever squiggle last saw.

/// One exact-string replacement an edit made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// The text the edit replaced.
    pub old: String,
    /// The text it put in its place.
    pub new: String,
    /// Every occurrence was replaced, not one.
    pub all: bool,
}

/// `after` with `edits` (applied in order) undone, last first; `None` when
/// that cannot be told for certain: a single replacement's `new` must occur
/// exactly once in the text (twice, and which one the edit wrote is a
/// guess; never, and the text has moved on), and an empty `new` is
/// everywhere.
pub fn undo_replacements(after: &str, edits: &[Replacement]) -> Option<String> {
    let mut text = after.to_string();
    for edit in edits.iter().rev() {
        if edit.new.is_empty() || edit.old == edit.new {
            return None;
        }
        let count = text.matches(edit.new.as_str()).count();
        text = match (edit.all, count) {
            (_, 0) => return None,
            (false, 1) => text.replacen(edit.new.as_str(), &edit.old, 1),
            (false, _) => return None,
            (true, _) => text.replace(edit.new.as_str(), &edit.old),
        };
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replace(old: &str, new: &str) -> Replacement {
        Replacement {
            old: old.into(),
            new: new.into(),
            all: false,
        }
    }

    #[test]
    fn an_edit_is_undone_where_another_agent_changed_the_file_since() {
        let now = "a = 1\nb = 22\n";
        assert_eq!(
            undo_replacements(now, &[replace("a = 0", "a = 1")]),
            Some("a = 0\nb = 22\n".into())
        );
    }

    #[test]
    fn several_edits_are_undone_last_first() {
        let edits = [replace("x", "yy"), replace("yy", "zzz")];
        assert_eq!(undo_replacements("zzz\n", &edits), Some("x\n".into()));
        let all = Replacement {
            all: true,
            ..replace("a", "b")
        };
        assert_eq!(undo_replacements("b b\n", &[all]), Some("a a\n".into()));
    }

    #[test]
    fn what_cannot_be_told_for_certain_is_none() {
        assert_eq!(undo_replacements("b b\n", &[replace("a", "b")]), None);
        assert_eq!(undo_replacements("c\n", &[replace("a", "b")]), None);
        assert_eq!(undo_replacements("c\n", &[replace("a", "")]), None);
    }
}
