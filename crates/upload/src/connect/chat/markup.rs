//! Chat markup as the text a reader (and the topic extractor) takes in:
//! Slack's `<@U123>`, `<#C1|name>`, `<http://x|label>` and `<!here>` as
//! the names and labels they show, its `&amp;`, `&lt;` and `&gt;` as the
//! characters, and `:emoji:` codes (Slack's and Mattermost's) left out.

/// What a Slack reference names, for [`slack_text`] to show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference<'a> {
    /// `<@U123>`: a person, by user id.
    Person(&'a str),
    /// `<#C123>`: a conversation, by id.
    Channel(&'a str),
}

/// `raw`, a Slack message's `text`, as readable text; `name` gives the
/// name of a person or channel a reference names without its label.
pub fn slack_text(raw: &str, name: &dyn Fn(Reference<'_>) -> Option<String>) -> String {
    let mut text = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(open) = rest.find('<') {
        text.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after
            .find(['>', '<'])
            .filter(|at| after[*at..].starts_with('>'))
        else {
            text.push('<');
            rest = after;
            continue;
        };
        text.push_str(&reference(&after[..close], name));
        rest = &after[close + 1..];
    }
    text.push_str(rest);
    without_emoji(&unescape(&text))
}

/// What one `<...>` shows.
fn reference(inner: &str, name: &dyn Fn(Reference<'_>) -> Option<String>) -> String {
    let (target, label) = match inner.split_once('|') {
        Some((target, label)) => (target, Some(label.trim())),
        None => (inner, None),
    };
    if let Some(id) = target.strip_prefix('@') {
        let shown = label
            .map(|l| l.trim_start_matches('@').to_owned())
            .or_else(|| name(Reference::Person(id)))
            .unwrap_or_else(|| id.to_owned());
        return format!("@{shown}");
    }
    if let Some(id) = target.strip_prefix('#') {
        let shown = label
            .map(|l| l.trim_start_matches('#').to_owned())
            .or_else(|| name(Reference::Channel(id)))
            .unwrap_or_else(|| id.to_owned());
        return format!("#{shown}");
    }
    if let Some(special) = target.strip_prefix('!') {
        return match (special, label) {
            ("here" | "channel" | "everyone", _) => format!("@{special}"),
            (_, Some(label)) => label.to_owned(),
            _ => String::new(),
        };
    }
    match label {
        Some(label) if !label.is_empty() => label.to_owned(),
        _ => target.strip_prefix("mailto:").unwrap_or(target).to_owned(),
    }
}

/// Slack's three escapes, undone (`&amp;` last, so that `&amp;lt;` reads
/// `&lt;`).
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// `text` without `:emoji:` codes (`:+1:`, `:tada:`, `:thumbsup::skin-tone-2:`):
/// a name of letters, digits, `_`, `+`, `-` or `'` between colons, with a
/// letter in it or `+1`/`-1` (so `10:30:00` stays).
pub fn without_emoji(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find(':') {
        kept.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_+-'".contains(c)))
            .unwrap_or(after.len());
        let name = &after[..end];
        let is_name = name.chars().any(|c| c.is_ascii_alphabetic()) || name == "+1" || name == "-1";
        if after[end..].starts_with(':') && is_name {
            rest = &after[end + 1..];
        } else {
            kept.push(':');
            rest = after;
        }
    }
    kept.push_str(rest);
    kept
}

/// How many words `text` has: its runs between white space that hold a
/// letter or a digit, mentions (`@ada`) and links left uncounted.
pub fn words(text: &str) -> usize {
    text.split_whitespace()
        .filter(|w| !w.starts_with('@') && !is_link(w) && w.chars().any(char::is_alphanumeric))
        .count()
}

/// Whether a run of text between white space is a link (`https://...`,
/// `www....`, `<https://...>`).
pub fn is_link(word: &str) -> bool {
    let word = word.trim_start_matches(['<', '(']).to_ascii_lowercase();
    word.contains("://") || word.starts_with("www.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(reference: Reference<'_>) -> Option<String> {
        match reference {
            Reference::Person("U024BE7LH") => Some("ada".to_owned()),
            Reference::Channel("C024BE91L") => Some("engines".to_owned()),
            _ => None,
        }
    }

    #[test]
    fn slack_markup_reads_as_the_names_and_labels_it_shows() {
        assert_eq!(
            slack_text(
                "<@U024BE7LH>: see <#C024BE91L> and <#C999|looms>, <https://example.com/cards|the card reader> or <https://example.com>",
                &names
            ),
            "@ada: see #engines and #looms, the card reader or https://example.com"
        );
        assert_eq!(
            slack_text(
                "<@U0NOBODY|grace> <!here> <!subteam^S1|@engineers> <mailto:ada@example.com>",
                &names
            ),
            "@grace @here @engineers ada@example.com"
        );
        assert_eq!(
            slack_text("<@U0NOBODY> wrote x &lt; y &amp;&amp; y &gt; z", &names),
            "@U0NOBODY wrote x < y && y > z"
        );
        assert_eq!(
            slack_text("a < b, and <unclosed", &names),
            "a < b, and <unclosed"
        );
    }

    #[test]
    fn emoji_codes_leave_and_times_stay() {
        assert_eq!(
            without_emoji("Shipped :tada: at 10:30:00 :+1::skin-tone-2:"),
            "Shipped  at 10:30:00 "
        );
        assert_eq!(without_emoji("key: value"), "key: value");
        assert_eq!(without_emoji("http://example.com"), "http://example.com");
    }

    #[test]
    fn words_count_what_was_said_not_who_was_named() {
        assert_eq!(words("@ada thanks!"), 1);
        assert_eq!(words("  +1  "), 1);
        assert_eq!(words("^ :"), 0);
        assert_eq!(words("The loom reads cards"), 4);
    }
}
