//! A message's own words as a person reads them for what it is about:
//! without the trailers a patch carries (`Signed-off-by:`, `Cc:`,
//! `Link:`, ...), wherever they stand in a line, without the header lines
//! a forwarded patch or a reply writes in its body (`From: Ada <...>`,
//! `Date: ...`), without addresses, without the names of the people in
//! the conversation, and, for a patch, its description and the paths it
//! changes rather than its code, as a commit teaches.

use std::collections::HashSet;

use super::strip::squeeze;
use crate::connect::source::{before_trailer, is_trailer_token, trailer, trailer_start};

/// A message as read for what it is about: its subject, its own words
/// and the paths a patch in it changes.
#[derive(Debug, PartialEq, Eq)]
pub struct Read {
    /// The subject, without names and addresses.
    pub subject: String,
    /// The body's own words, without trailers, header lines, names and
    /// addresses; a patch's description rather than its code.
    pub body: String,
    /// The paths a patch in the body changes.
    pub paths: Vec<String>,
}

/// What a message's `subject` and own words (`body`) teach, read once.
/// `people` are the names the message's headers give the people in the
/// conversation (its `From`, `To` and `Cc`); the names its trailers and
/// its body's header lines give are added to them, and a word `known`
/// holds (the names of the source's senders) is a name too. Their words,
/// written with a capital as names are, are left out, since a name says
/// who talked, not what about.
pub fn read(subject: &str, body: &str, people: &[String], known: &HashSet<String>) -> Read {
    let (description, paths) = patch(body);
    let lines: Vec<&str> = description.lines().collect();
    let headers = body_headers(&lines);
    let named = names(&lines, &headers, people);
    let is_name = |word: &str| named.contains(word) || known.contains(word);
    let kept: Vec<String> = lines
        .iter()
        .enumerate()
        .filter(|(n, _)| !headers.contains(n))
        .map(|(_, line)| before_trailer(line))
        .map(|line| without_addresses_and_names(line, &is_name))
        .collect();
    let kept: Vec<&str> = kept.iter().map(|line| line.trim_end()).collect();
    Read {
        subject: without_addresses_and_names(subject, &is_name)
            .trim()
            .to_owned(),
        body: squeeze(&kept),
        paths,
    }
}

/// The words of the names of `people` and of those the `headers` lines
/// of `lines` and their trailers give, as names are written: with a
/// capital, more than a letter.
fn names<'a>(
    lines: &[&'a str],
    headers: &HashSet<usize>,
    people: &'a [String],
) -> HashSet<&'a str> {
    let mut named: Vec<&str> = people.iter().map(String::as_str).collect();
    for (n, line) in lines.iter().enumerate() {
        if headers.contains(&n) {
            named.extend(line.split_once(':').map(|(_, value)| value));
        } else if let Some((_, value)) = trailer_in(line) {
            named.push(value);
        }
    }
    named.into_iter().flat_map(name_words).collect()
}

/// The words of `name` a text may write it with: those written with a
/// capital and more than a letter, a hyphenated one whole and in its
/// parts ("Kroah-Hartman", "Kroah", "Hartman").
pub fn name_words(name: &str) -> impl Iterator<Item = &str> {
    name.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
        .flat_map(|word| {
            let parts = word
                .contains('-')
                .then(|| word.split('-'))
                .into_iter()
                .flatten();
            std::iter::once(word).chain(parts)
        })
        .map(|word| word.trim_matches('-'))
        .filter(|word| word.chars().count() > 1 && word.starts_with(char::is_uppercase))
}

/// The fields of a message header that a body repeats: a patch sent for
/// its author starts with `From:` (and `Date:`, `Subject:`), and some
/// mail programs introduce a quote with them.
const HEADER_FIELDS: [&str; 6] = ["from:", "date:", "subject:", "to:", "cc:", "sent:"];

/// The lines of `lines` that are header lines written in a body: a run of
/// them that begins with a `From:` line naming an address, at the body's
/// first line or followed by another field (`From: Ada <...>` then
/// `Date: ...`, above a quote). "From: the start, ..." is a sentence.
fn body_headers(lines: &[&str]) -> HashSet<usize> {
    let field = |line: &str| {
        let lower = line.trim_start().to_lowercase();
        HEADER_FIELDS.iter().any(|f| lower.starts_with(f)) && line.contains(':')
    };
    let from = |line: &str| line.trim_start().to_lowercase().starts_with("from:");
    let mut headers = HashSet::new();
    let first = lines.iter().position(|line| !line.trim().is_empty());
    for n in 0..lines.len() {
        let starts = from(lines[n])
            && lines[n].contains('@')
            && (Some(n) == first || lines.get(n + 1).is_some_and(|next| field(next)));
        if !starts || headers.contains(&n) {
            continue;
        }
        let mut at = n;
        while at < lines.len() && field(lines[at]) {
            headers.insert(at);
            at += 1;
        }
    }
    headers
}

/// The trailer in `line`, whole or after words of its own ("Serial
/// portion: Acked-by: Ada <...>"): its token and its value.
fn trailer_in(line: &str) -> Option<(&str, &str)> {
    trailer(line).or_else(|| {
        let at = trailer_start(line)?;
        trailer(&line[at..])
    })
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

/// `line` without e-mail addresses (`<ada@example.com>` or bare),
/// without trailers' tokens ([`is_trailer_token`]) and without the words
/// `is_name` holds to be names. The topic extractor skips addresses too;
/// they leave here as well so that an upload's stored text, shown as
/// evidence, carries nobody's address.
fn without_addresses_and_names(line: &str, is_name: &impl Fn(&str) -> bool) -> String {
    line.split(' ')
        .filter(|token| {
            let bare = token.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
            // A name's possessive is the name ("Cercueil's patches").
            let bare = ["'s", "\u{2019}s"]
                .iter()
                .find_map(|s| bare.strip_suffix(s))
                .unwrap_or(bare);
            let address = token.contains('@') && token.contains('.');
            let name = !bare.is_empty() && is_name(bare);
            !address && !name && !bare.split('/').any(is_trailer_token)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `body` teaches and the paths it changes, with no subject and
    /// no known sender.
    fn as_read(body: &str, people: &[String]) -> (String, Vec<String>) {
        let read = read("", body, people, &HashSet::new());
        (read.body, read.paths)
    }

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

    /// A patch sent for its author, as `git send-email` writes it: the
    /// author's `From:` first in the body.
    const SENT_FOR_ITS_AUTHOR: &str = "From: Paul Cercueil <paul@crapouillou.net>\n\
\n\
If we cannot create the IRQ domain, the driver should fail to probe\n\
instead of succeeding with just a warning message.\n\
\n\
Signed-off-by: Paul Cercueil <paul@crapouillou.net>\n\
Signed-off-by: Zhou Yanjie <zhouyanjie@zoho.com>\n\
---\n\
 drivers/irqchip/irq-ingenic.c | 15 ++++++++++-----\n\
\n\
diff --git a/drivers/irqchip/irq-ingenic.c b/drivers/irqchip/irq-ingenic.c\n\
--- a/drivers/irqchip/irq-ingenic.c\n\
+++ b/drivers/irqchip/irq-ingenic.c\n";

    #[test]
    fn a_patch_sent_for_its_author_teaches_no_name_of_its_header_or_trailers() {
        let people = vec!["Zhou Yanjie".to_owned()];
        let (text, paths) = as_read(SENT_FOR_ITS_AUTHOR, &people);
        assert_eq!(paths, ["drivers/irqchip/irq-ingenic.c"]);
        assert_eq!(
            text,
            "If we cannot create the IRQ domain, the driver should fail to probe\n\
             instead of succeeding with just a warning message."
        );
    }

    #[test]
    fn a_known_senders_name_leaves_the_subject_and_the_body() {
        let known: HashSet<String> = ["Cercueil".to_owned()].into();
        let read = read(
            "MIPS: Ingenic: apply Cercueil's fix",
            "As Cercueil asked, the clock stays on.",
            &[],
            &known,
        );
        assert_eq!(read.subject, "MIPS: Ingenic: apply fix");
        assert_eq!(read.body, "As asked, the clock stays on.");
    }

    #[test]
    fn a_hyphenated_name_is_a_name_whole_and_in_its_parts() {
        let words: Vec<&str> = name_words("Greg Kroah-Hartman").collect();
        assert_eq!(words, ["Greg", "Kroah-Hartman", "Kroah", "Hartman"]);
        let (text, _) = as_read(
            "Kroah-Hartman and Hartman agreed; the mips-next tree stays.",
            &["Greg Kroah-Hartman".to_owned()],
        );
        assert_eq!(text, "and agreed; the mips-next tree stays.");
    }

    #[test]
    fn a_sentence_that_begins_with_from_is_no_header() {
        let body = "From: the start, the engine was meant to be general.";
        assert_eq!(as_read(body, &[]).0, body);
    }

    #[test]
    fn a_subject_keeps_no_name_of_the_conversation() {
        let body = "Signed-off-by: Paul Burton <paulburton@kernel.org>";
        let read = read(
            "MAINTAINERS: Use @kernel.org address for Paul Burton",
            body,
            &[],
            &HashSet::new(),
        );
        assert_eq!(read.subject, "MAINTAINERS: Use address for");
    }

    #[test]
    fn a_reply_that_names_its_quote_with_header_lines_keeps_only_its_own_words() {
        // What remains of such a reply once its quote is left out.
        let body = "From: Christoph Hellwig <hch@lst.de>\n\
Date: Sat,  8 Dec 2018 09:41:10 -0800\n\
\n\
Looks fine to me, Christoph.\n\
\n\
Acked-by: David S. Miller <davem@davemloft.net>";
        let (text, _) = as_read(body, &["David Miller".to_owned()]);
        assert_eq!(text, "Looks fine to me,");
    }

    #[test]
    fn a_trailer_after_words_of_its_own_and_a_trailers_token_in_a_sentence_teach_nothing() {
        // The trailer names Greg: his name leaves the sentence too.
        let body = "Support for serial interfaces moves to the MFD driver.\n\
\n\
Serial portion: Acked-by: Greg Kroah-Hartman <gregkh@linuxfoundation.org>\n\
Is there anything to improve? If not, could I get an acked-by from\n\
Greg? The stand-by mode stays. Add Reviewed/Acked-By tags.";
        let (text, _) = as_read(body, &[]);
        assert_eq!(
            text,
            "Support for serial interfaces moves to the MFD driver.\n\n\
             Serial portion:\n\
             Is there anything to improve? If not, could I get an from\n\
             The stand-by mode stays. Add tags."
        );
    }
}
