//! How a person is reached from their card and page: an e-mail, and a
//! chat link an operator makes from a template (`--contact-link`).

use std::fmt;
use std::str::FromStr;

use url::Url;

/// Where the person's e-mail address goes in a [`ContactLink`].
const EMAIL: &str = "{email}";

/// Schemes a link may never have: they run or embed content instead of
/// opening a conversation.
const REFUSED_SCHEMES: [&str; 4] = ["javascript", "data", "vbscript", "file"];

/// A chat link made from a template with `{email}` where the person's
/// address goes: `https://teams.microsoft.com/l/chat/0/0?users={email}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContactLink {
    template: String,
}

/// Why a contact link template was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContactLinkError {
    /// No place for the address.
    #[error("the contact link must contain {{email}} where the person's address goes")]
    NoEmail,
    /// Not a URL once an address is put in.
    #[error("the contact link is not a URL with an address in place of {{email}}: {0}")]
    NotAUrl(String),
    /// A scheme that runs or embeds content.
    #[error("the contact link may not be a {0}: URL")]
    RefusedScheme(String),
}

impl FromStr for ContactLink {
    type Err = ContactLinkError;

    fn from_str(template: &str) -> Result<Self, Self::Err> {
        let template = template.trim();
        if !template.contains(EMAIL) {
            return Err(ContactLinkError::NoEmail);
        }
        let link = Self {
            template: template.to_owned(),
        };
        let sample = Url::parse(&link.for_email("someone@example.com"))
            .map_err(|e| ContactLinkError::NotAUrl(e.to_string()))?;
        if REFUSED_SCHEMES.contains(&sample.scheme()) {
            return Err(ContactLinkError::RefusedScheme(sample.scheme().to_owned()));
        }
        Ok(link)
    }
}

impl fmt::Display for ContactLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.template)
    }
}

impl ContactLink {
    /// The link for the person at `email`: the template with the address,
    /// every character but letters, digits, `@`, `.`, `-` and `_`
    /// percent-encoded, in place of each `{email}`.
    pub fn for_email(&self, email: &str) -> String {
        self.template.replace(EMAIL, &encoded(email))
    }
}

/// `text` with every byte but ASCII letters, digits, `@`, `.`, `-` and `_`
/// percent-encoded.
fn encoded(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'@' | b'.' | b'-' | b'_' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The ways to reach a person a card or page offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Contact {
    /// `mailto:` and the address.
    pub(crate) mail: String,
    /// The chat link, when the operator set a template.
    pub(crate) chat: Option<String>,
}

impl Contact {
    /// How to reach the person at `email`, with the operator's chat
    /// `link` if any.
    pub(crate) fn of(email: &str, link: Option<&ContactLink>) -> Self {
        Self {
            mail: format!("mailto:{}", encoded(email)),
            chat: link.map(|l| l.for_email(email)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_puts_the_address_in_place() {
        let teams: ContactLink = "https://teams.microsoft.com/l/chat/0/0?users={email}"
            .parse()
            .unwrap();
        assert_eq!(
            teams.for_email("ada.lovelace@example.com"),
            "https://teams.microsoft.com/l/chat/0/0?users=ada.lovelace@example.com"
        );
        // What could break out of a query string is encoded.
        assert_eq!(
            teams.for_email("a&b+c@example.com"),
            "https://teams.microsoft.com/l/chat/0/0?users=a%26b%2Bc@example.com"
        );
        let slack: ContactLink = "slack://user?email={email}".parse().unwrap();
        assert_eq!(slack.for_email("a@x.io"), "slack://user?email=a@x.io");
    }

    #[test]
    fn a_template_without_a_place_or_a_url_or_with_a_script_is_refused() {
        assert_eq!(
            "https://chat.example.com/".parse::<ContactLink>(),
            Err(ContactLinkError::NoEmail)
        );
        assert!(matches!(
            "not a url {email}".parse::<ContactLink>(),
            Err(ContactLinkError::NotAUrl(_))
        ));
        assert_eq!(
            "javascript:alert('{email}')".parse::<ContactLink>(),
            Err(ContactLinkError::RefusedScheme("javascript".into()))
        );
        assert!(ContactLinkError::NoEmail.to_string().contains("{email}"));
    }

    #[test]
    fn a_contact_offers_mail_and_the_chat_link_when_set() {
        let contact = Contact::of("ada@example.com", None);
        assert_eq!(contact.mail, "mailto:ada@example.com");
        assert_eq!(contact.chat, None);
        let link: ContactLink = "https://chat.example.com/dm/{email}".parse().unwrap();
        let contact = Contact::of("ada@example.com", Some(&link));
        assert_eq!(
            contact.chat.as_deref(),
            Some("https://chat.example.com/dm/ada@example.com")
        );
    }
}
