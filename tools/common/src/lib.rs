//! What the tools that do not ship (evaluations, benchmarks) share: the
//! BM25 baseline, the release `kenning` binary run as an operator would,
//! and HTML read as text. It knows no crate of the product but its
//! command line and its database's tables.

pub mod bm25;
pub mod serve;

/// The text of an HTML fragment, as the product's mail connector reads
/// it: tags left out (a block's end as a line break), entities decoded,
/// scripts and styles dropped.
pub fn html_to_text(html: &str) -> String {
    mail_parser::decoders::html::html_to_text(html)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_read_as_its_text() {
        let text = html_to_text(
            "<p>Beans &amp; <b>grinders</b></p><p>R&eacute;sum&eacute; &lt;tag&gt;</p>",
        );
        assert_eq!(
            text.split_whitespace().collect::<Vec<_>>(),
            ["Beans", "&", "grinders", "Résumé", "<tag>"]
        );
    }
}
