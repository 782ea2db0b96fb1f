//! The posts of a Stack Exchange data dump (`Posts.xml`): one `<row .../>`
//! element per post, every field an attribute.

use std::collections::HashMap;

use anyhow::{bail, Context};
use chrono::{DateTime, NaiveDateTime, Utc};

/// A question or an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Post {
    pub id: u64,
    pub kind: PostKind,
    pub created: DateTime<Utc>,
    /// The author's site user id; `None` for posts of deleted accounts.
    pub owner: Option<u64>,
    /// HTML.
    pub body: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PostKind {
    Question {
        title: String,
        accepted_answer: Option<u64>,
    },
    Answer {
        question: u64,
    },
}

/// The questions and answers of a dump; other post types (tag wikis,
/// moderator nominations) are skipped.
pub fn parse(xml: &str) -> anyhow::Result<Vec<Post>> {
    let mut posts = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find("<row") {
        let (attributes, after) = row_attributes(&rest[start + "<row".len()..])
            .with_context(|| format!("row {}", posts.len() + 1))?;
        rest = after;
        if let Some(post) = post(&attributes)? {
            posts.push(post);
        }
    }
    Ok(posts)
}

/// The attributes of one element (the text after its name), decoded, and
/// the text after the element.
fn row_attributes(mut s: &str) -> anyhow::Result<(HashMap<&str, String>, &str)> {
    let mut attributes = HashMap::new();
    loop {
        s = s.trim_start();
        if let Some(after) = s.strip_prefix("/>") {
            return Ok((attributes, after));
        }
        let Some(eq) = s.find('=') else {
            bail!("an attribute without a value");
        };
        let name = s[..eq].trim();
        let Some(value) = s[eq + 1..].trim_start().strip_prefix('"') else {
            bail!("the value of {name} is not quoted");
        };
        let Some(end) = value.find('"') else {
            bail!("the value of {name} does not end");
        };
        attributes.insert(
            name,
            html_escape::decode_html_entities(&value[..end]).into(),
        );
        s = &value[end + 1..];
    }
}

fn number(attributes: &HashMap<&str, String>, name: &str) -> anyhow::Result<Option<u64>> {
    attributes
        .get(name)
        .map(|v| v.parse().with_context(|| format!("{name} {v:?}")))
        .transpose()
}

fn post(attributes: &HashMap<&str, String>) -> anyhow::Result<Option<Post>> {
    let required = |name: &str| {
        attributes
            .get(name)
            .with_context(|| format!("a post without {name}"))
    };
    let kind = match required("PostTypeId")?.as_str() {
        "1" => PostKind::Question {
            title: required("Title")?.clone(),
            accepted_answer: number(attributes, "AcceptedAnswerId")?,
        },
        "2" => PostKind::Answer {
            question: number(attributes, "ParentId")?.context("an answer without ParentId")?,
        },
        _ => return Ok(None),
    };
    let created = required("CreationDate")?;
    // The dump writes UTC without a zone.
    let created = NaiveDateTime::parse_from_str(created, "%Y-%m-%dT%H:%M:%S%.f")
        .with_context(|| format!("CreationDate {created:?}"))?
        .and_utc();
    Ok(Some(Post {
        id: number(attributes, "Id")?.context("a post without Id")?,
        kind,
        created,
        owner: number(attributes, "OwnerUserId")?,
        body: required("Body")?.clone(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMP: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<posts>
  <row Id="1" PostTypeId="1" AcceptedAnswerId="3" CreationDate="2015-01-27T20:09:32.720" Body="&lt;p&gt;Beans &amp;amp; a &quot;grinder&quot;?&lt;/p&gt;&#xA;" OwnerUserId="4" Title="How to store &gt; 1 kg?" />
  <row Id="2" PostTypeId="5" CreationDate="2015-01-27T20:10:00.000" Body="" />
  <row Id="3" PostTypeId="2" ParentId="1" CreationDate="2015-01-28T08:00:01.5" Body="&lt;p&gt;Cold.&lt;/p&gt;" />
</posts>"#;

    #[test]
    fn questions_and_answers_are_read_with_entities_decoded() {
        let posts = parse(DUMP).unwrap();
        assert_eq!(posts.len(), 2);
        assert_eq!(
            posts[0].kind,
            PostKind::Question {
                title: "How to store > 1 kg?".into(),
                accepted_answer: Some(3),
            }
        );
        // One level of XML escaping goes; the HTML's own stays.
        assert_eq!(posts[0].body, "<p>Beans &amp; a \"grinder\"?</p>\n");
        assert_eq!(posts[0].owner, Some(4));
        assert_eq!(posts[1].kind, PostKind::Answer { question: 1 });
        assert_eq!(posts[1].owner, None);
        assert_eq!(
            posts[1].created.to_rfc3339(),
            "2015-01-28T08:00:01.500+00:00"
        );
    }

    #[test]
    fn a_broken_row_is_an_error() {
        assert!(parse(r#"<row Id="1" PostTypeId="2 />"#).is_err());
        assert!(parse(
            r#"<row Id="1" PostTypeId="2" CreationDate="yesterday" Body="" ParentId="1" />"#
        )
        .is_err());
    }
}
