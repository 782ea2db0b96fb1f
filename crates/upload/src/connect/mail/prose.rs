//! A message's own words as a person reads them for what it is about:
//! without the trailers a patch carries (`Signed-off-by:`, `Cc:`,
//! `Link:`, ...), without addresses, without the names of the people in
//! the conversation, and, for a patch, its description and the paths it
//! changes rather than its code, as a commit teaches.

use std::collections::HashSet;

use super::strip::squeeze;
use crate::connect::source::trailer;

/// What a message's own words (`body`) teach, and the paths a patch in
/// it changes. `people` are the names the message's headers give the
/// people in the conversation (its `From`, `To` and `Cc`): their words,
/// written with a capital as names are, are left out, since a name says
/// who talked, not what about.
pub fn as_read(body: &str, people: &[String]) -> (String, Vec<String>) {
    let (description, paths) = patch(body);
    let names: HashSet<&str> = people
        .iter()
        .flat_map(|name| name.split(|c: char| !c.is_alphanumeric() && c != '\''))
        .filter(|word| word.chars().count() > 1 && word.starts_with(char::is_uppercase))
        .collect();
    let kept: Vec<String> = description
        .lines()
        .filter(|line| trailer(line).is_none())
        .map(|line| without_addresses_and_names(line, &names))
        .collect();
    let kept: Vec<&str> = kept.iter().map(|line| line.trim_end()).collect();
    (squeeze(&kept), paths)
}

/// The description of a patch in `body` and the paths it changes: the
/// text above its `---` line (or above its first `diff --git`), and the
/// `b/` side of each `diff --git` line; the whole body and no path when
/// it holds no patch.
fn patch(body: &str) -> (String, Vec<String>) {
    let lines: Vec<&str> = body.lines().collect();
    let Some(first_diff) = lines.iter().position(|l| l.starts_with("diff --git ")) else {
        return (body.to_owned(), Vec::new());
    };
    let end = lines[..first_diff]
        .iter()
        .position(|l| l.trim_end() == "---")
        .unwrap_or(first_diff);
    let mut paths: Vec<String> = Vec::new();
    for line in &lines[first_diff..] {
        let Some(rest) = line.strip_prefix("diff --git ") else {
            continue;
        };
        let path = rest
            .rsplit_once(" b/")
            .map_or(rest, |(_, path)| path)
            .trim()
            .to_owned();
        if !path.is_empty() && !paths.contains(&path) {
            paths.push(path);
        }
    }
    (lines[..end].join("\n"), paths)
}

/// `line` without e-mail addresses (`<ada@example.com>` or bare) and
/// without the words of `names`.
fn without_addresses_and_names(line: &str, names: &HashSet<&str>) -> String {
    line.split(' ')
        .filter(|token| {
            let bare = token.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
            let address = token.contains('@') && token.contains('.');
            let name = !bare.is_empty() && names.contains(bare);
            !address && !name
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A patch as a kernel subsystem's list carries it (git format-patch).
    const PATCH: &str = "The policy loader rewrote an unchanged policy on every boot,\n\
which costs a full reload. Compare the policy first and skip the load\n\
when nothing changed.\n\
\n\
Reported-by: Jim Carter <jwcart2@gmail.com>\n\
Signed-off-by: James Carter <jwcart2@gmail.com>\n\
Link: https://lore.kernel.org/selinux/20250114.1@gmail.com\n\
---\n\
 libselinux/src/load_policy.c | 12 +++++++++---\n\
 1 file changed, 9 insertions(+), 3 deletions(-)\n\
\n\
diff --git a/libselinux/src/load_policy.c b/libselinux/src/load_policy.c\n\
index 1111111..2222222 100644\n\
--- a/libselinux/src/load_policy.c\n\
+++ b/libselinux/src/load_policy.c\n\
@@ -10,6 +10,9 @@ int load_policy(int fd)\n\
+\tstruct stat sb;\n\
+\tconst void *map;\n\
 \treturn 0;\n\
 }\n\
--\n\
2.47.1\n";

    #[test]
    fn a_patch_teaches_its_description_and_the_paths_it_changes() {
        let people = vec!["James Carter".to_owned()];
        let (text, paths) = as_read(PATCH, &people);
        assert_eq!(paths, ["libselinux/src/load_policy.c"]);
        assert!(text.starts_with("The policy loader rewrote"), "{text}");
        for gone in [
            "Signed-off-by",
            "Reported-by",
            "gmail.com",
            "struct",
            "Carter",
            "James",
            "lore.kernel.org",
        ] {
            assert!(!text.contains(gone), "{gone} in {text}");
        }
    }

    #[test]
    fn names_and_addresses_leave_a_reply_and_its_words_stay() {
        let people = vec!["Paul Moore".to_owned(), "Ondrej Mosnacek".to_owned()];
        let (text, paths) = as_read(
            "Thanks Ondrej, merged into selinux/dev.\n\nPaul Moore <paul@paul-moore.com> will send the pull request; \
             the moore machine is unrelated.\n\nAcked-by: Paul Moore <paul@paul-moore.com>",
            &people,
        );
        assert!(paths.is_empty());
        assert_eq!(
            text,
            "Thanks merged into selinux/dev.\n\nwill send the pull request; the moore machine is unrelated."
        );
    }
}
