//! Reading IMAP answers (atoms, quoted strings, literals, lists: RFC 3501
//! section 4) and writing mailbox names (modified UTF-7, section 5.1.3).

use super::wire::Response;

/// One value of an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A bare word or number (`UID`, `\Seen`, `BODY[]<0>`).
    Atom(String),
    /// A quoted string or a literal.
    Bytes(Vec<u8>),
    /// A parenthesised list.
    List(Vec<Value>),
    /// `NIL`.
    Nil,
}

impl Value {
    /// The bytes of a string, literal or atom.
    pub fn into_bytes(self) -> Option<Vec<u8>> {
        match self {
            Value::Bytes(bytes) => Some(bytes),
            Value::Atom(atom) => Some(atom.into_bytes()),
            Value::List(_) | Value::Nil => None,
        }
    }
}

/// Reads the values of one answer in order.
#[derive(Debug)]
pub struct Parser {
    text: Vec<u8>,
    at: usize,
    literals: std::vec::IntoIter<Vec<u8>>,
}

impl Parser {
    pub fn new(response: Response) -> Self {
        Self {
            text: response.text,
            at: 0,
            literals: response.literals.into_iter(),
        }
    }

    /// The next value, if it is an atom.
    pub fn atom(&mut self) -> Option<String> {
        match self.value()? {
            Value::Atom(atom) => Some(atom),
            _ => None,
        }
    }

    /// The next value, if there is one.
    pub fn value(&mut self) -> Option<Value> {
        while self.text.get(self.at) == Some(&b' ') {
            self.at += 1;
        }
        match *self.text.get(self.at)? {
            b'(' => {
                self.at += 1;
                let mut list = Vec::new();
                loop {
                    while self.text.get(self.at) == Some(&b' ') {
                        self.at += 1;
                    }
                    match self.text.get(self.at) {
                        Some(b')') => {
                            self.at += 1;
                            return Some(Value::List(list));
                        }
                        None => return None,
                        Some(_) => list.push(self.value()?),
                    }
                }
            }
            b')' => None,
            b'"' => {
                self.at += 1;
                let mut bytes = Vec::new();
                loop {
                    let b = *self.text.get(self.at)?;
                    self.at += 1;
                    match b {
                        b'"' => return Some(Value::Bytes(bytes)),
                        b'\\' => {
                            bytes.push(*self.text.get(self.at)?);
                            self.at += 1;
                        }
                        b => bytes.push(b),
                    }
                }
            }
            b'{' => {
                let end = self.text[self.at..].iter().position(|b| *b == b'}')?;
                self.at += end + 1;
                Some(Value::Bytes(self.literals.next()?))
            }
            _ => {
                let start = self.at;
                let mut in_brackets = false;
                while let Some(&b) = self.text.get(self.at) {
                    match b {
                        b'[' => in_brackets = true,
                        b']' => in_brackets = false,
                        b' ' | b'(' | b')' if !in_brackets => break,
                        _ => {}
                    }
                    self.at += 1;
                }
                let atom = String::from_utf8_lossy(&self.text[start..self.at]).into_owned();
                if atom.eq_ignore_ascii_case("NIL") {
                    Some(Value::Nil)
                } else {
                    Some(Value::Atom(atom))
                }
            }
        }
    }
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+,";

/// A mailbox name as IMAP writes it: modified UTF-7 (`Entwürfe` is
/// `Entw&APw-rfe`).
pub fn mailbox_name(name: &str) -> String {
    let mut out = String::new();
    let mut wide: Vec<u16> = Vec::new();
    let flush = |wide: &mut Vec<u16>, out: &mut String| {
        if wide.is_empty() {
            return;
        }
        let bytes: Vec<u8> = wide.iter().flat_map(|u| u.to_be_bytes()).collect();
        out.push('&');
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
            let sextets = [18, 12, 6, 0].map(|shift| BASE64[(n >> shift & 63) as usize] as char);
            out.extend(sextets.iter().take(chunk.len() + 1));
        }
        out.push('-');
        wide.clear();
    };
    for c in name.chars() {
        if (' '..='~').contains(&c) {
            flush(&mut wide, &mut out);
            out.push(c);
            if c == '&' {
                out.push('-');
            }
        } else {
            let mut units = [0u16; 2];
            wide.extend_from_slice(c.encode_utf16(&mut units));
        }
    }
    flush(&mut wide, &mut out);
    out
}

/// A mailbox name from the wire, readable (modified UTF-7 decoded; as it
/// is when it is not valid).
pub fn readable_mailbox(wire: &[u8]) -> String {
    let text = String::from_utf8_lossy(wire);
    let mut out = String::new();
    let mut rest: &str = &text;
    while let Some(start) = rest.find('&') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let Some(end) = after.find('-') else {
            return text.into_owned();
        };
        let encoded = &after[..end];
        if encoded.is_empty() {
            out.push('&');
        } else {
            let Some(decoded) = decode_utf7(encoded) else {
                return text.into_owned();
            };
            out.push_str(&decoded);
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

fn decode_utf7(encoded: &str) -> Option<String> {
    let mut bits = 0u32;
    let mut count = 0;
    let mut bytes = Vec::new();
    for c in encoded.bytes() {
        let value = BASE64.iter().position(|b| *b == c)? as u32;
        bits = bits << 6 | value;
        count += 6;
        if count >= 8 {
            count -= 8;
            bytes.push((bits >> count & 0xff) as u8);
        }
    }
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
        .collect();
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::super::wire::literal_at_end;
    use super::*;

    #[test]
    fn answers_are_read_as_values() {
        let mut parser = Parser::new(Response {
            text: b"* LIST (\\HasNoChildren \\Sent) \"/\" {4} NIL \"a \\\"q\\\"\" BODY[HEADER.FIELDS (A B)]<0>".to_vec(),
            literals: vec![b"Sent".to_vec()],
        });
        assert_eq!(parser.atom().as_deref(), Some("*"));
        assert_eq!(parser.atom().as_deref(), Some("LIST"));
        assert_eq!(
            parser.value(),
            Some(Value::List(vec![
                Value::Atom("\\HasNoChildren".into()),
                Value::Atom("\\Sent".into())
            ]))
        );
        assert_eq!(parser.value(), Some(Value::Bytes(b"/".to_vec())));
        assert_eq!(parser.value(), Some(Value::Bytes(b"Sent".to_vec())));
        assert_eq!(parser.value(), Some(Value::Nil));
        assert_eq!(parser.value(), Some(Value::Bytes(b"a \"q\"".to_vec())));
        assert_eq!(
            parser.atom().as_deref(),
            Some("BODY[HEADER.FIELDS (A B)]<0>")
        );
        assert_eq!(parser.value(), None);
    }

    #[test]
    fn literals_are_announced_at_the_end_of_a_line() {
        assert_eq!(literal_at_end(b"* 1 FETCH (BODY[] {123}"), Some(123));
        assert_eq!(literal_at_end(b"a LOGIN {5+}"), Some(5));
        assert_eq!(literal_at_end(b"* OK {not}"), None);
        assert_eq!(literal_at_end(b"* OK done"), None);
    }

    #[test]
    fn mailbox_names_are_modified_utf7() {
        for (name, wire) in [
            ("Sent", "Sent"),
            ("Entwürfe", "Entw&APw-rfe"),
            ("Éléments envoyés", "&AMk-l&AOk-ments envoy&AOk-s"),
            ("R&D", "R&-D"),
            ("日本語", "&ZeVnLIqe-"),
        ] {
            assert_eq!(mailbox_name(name), wire, "{name}");
            assert_eq!(readable_mailbox(wire.as_bytes()), name, "{wire}");
        }
        assert_eq!(readable_mailbox(b"odd&"), "odd&");
    }
}
