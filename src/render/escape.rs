//! One encoder per output language, and every renderer writes a value from the inputs through
//! the one of its language: names and messages come from a cluster, a paste or a manifest, and a
//! hostile one must stay a value. Terminal text is the engine's `quote::escape_control` (control
//! characters shown as `\e`, `\n`, `\u0007`), which the others build on where a line break or a
//! control byte has no place; a Kubernetes API path's segments are refused, not escaped
//! (`input::live::fetch::segment`).

use std::fmt::Write;

pub use crate::quote::{escape_control as terminal, escape_terminal as terminal_lines};

/// Text for an HTML (or SVG) body or attribute: `&<>"'` as entities, control characters (but
/// line feeds and tabs, which a text area keeps) shown as `\u{1b}`.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// JSON inside a `<script>` element: `<`, `>` and `&` as `\u003c`, `\u003e` and `\u0026`, so no
/// `</script`, `<!--` or `<script` can change the tokenizer's state, and the line separators
/// U+2028 and U+2029 escaped as JavaScript needs them. All of them only occur inside JSON's
/// strings, where the escapes mean the same characters.
pub fn script_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The ASCII punctuation that can start Markdown syntax (GitHub's, CommonMark and its tables):
/// backslash, code, emphasis, links and images (both need an unescaped `[` and `]`, so `(`, `)`
/// and `!` stay as they are, readable), raw HTML and autolinks, entities, headings,
/// strikethrough and a table's cell separator. CommonMark lets any ASCII punctuation be escaped
/// with a backslash, which then shows as itself.
const MARKDOWN_SPECIAL: &[char] = &['\\', '`', '*', '_', '[', ']', '<', '>', '#', '|', '&', '~'];

/// Text for Markdown, inline (a table's cell, a list item, a heading): control characters and
/// line breaks shown escaped (a value cannot end its row or start a block), then each special
/// character behind a backslash (it cannot open HTML, a link, an image, code or emphasis).
pub fn markdown(text: &str) -> String {
    let shown = terminal(text);
    let mut out = String::with_capacity(shown.len() + 8);
    for c in shown.chars() {
        if MARKDOWN_SPECIAL.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A name as Markdown inline code: control characters and line breaks shown escaped, fenced by
/// one backtick more than the longest run inside (CommonMark's code span), padded with a space
/// when it starts or ends with a backtick; `|` escaped, which GitHub's tables read first.
pub fn markdown_code(text: &str) -> String {
    let shown = terminal(text);
    let longest = shown.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if shown.starts_with('`') || shown.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{}{pad}{fence}", shown.replace('|', "\\|"))
}

/// A label value of the Prometheus text exposition format: `\`, `"` and a line feed as `\\`,
/// `\"` and `\n`, the only escapes the format has (prometheus/common's `expfmt`, `writeEscapedString`
/// with `escapeLabelValue`). prometheus-client 0.24's text encoder writes label values as they
/// are, so they are escaped before it sees them.
pub fn prometheus_label(text: &str) -> String {
    if !text.contains(['\\', '"', '\n']) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The campaign's strings: a forged series, a name ending in a backslash, Markdown's line
    /// breaks, heading, HTML, image and link, a comment opening a script, terminal escapes, a
    /// carriage return, the Unicode line separators and NUL.
    const HOSTILE: &[&str] = &[
        "x\"} 1\nhpacalc_desired_replicas{namespace=\"kube-system\",horizontalpodautoscaler=\"forged\"} 999",
        "ends-in\\",
        "a\n# heading\n| x | y |",
        "<img src=x onerror=alert(1)>",
        "![image](https://example.com/i.png)",
        "[link](https://example.com)",
        "<!--<script",
        "`code` *em* _em_ ~~strike~~ &amp;",
        "\u{1b}[31mred\u{1b}]0;title\u{7}",
        "carriage\rreturn",
        "line\u{2028}separator\u{2029}paragraph",
        "nul\0byte",
    ];

    fn raw_controls(text: &str) -> bool {
        text.chars()
            .any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}')
    }

    #[test]
    fn terminal_text_has_no_control_character_left() {
        for s in HOSTILE {
            assert!(!raw_controls(&terminal(s)), "{s:?}: {:?}", terminal(s));
        }
        assert_eq!(
            terminal("\u{1b}\u{7}\r\0\u{2028}"),
            "\\e\\u0007\\r\\u0000\\u2028"
        );
        assert_eq!(terminal_lines("a\u{1b}\nb"), "a\\e\nb");
    }

    #[test]
    fn html_has_no_tag_entity_quote_or_control_character_left() {
        for s in HOSTILE {
            let e = html(s);
            assert!(!e.contains(['<', '>', '"', '\'']), "{s:?}: {e}");
            assert!(
                !e.chars().any(|c| c.is_control() && c != '\n'),
                "{s:?}: {e}"
            );
            // Every `&` starts one of the entities written here.
            let entities = ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"];
            for (i, _) in e.match_indices('&') {
                assert!(entities.iter().any(|x| e[i..].starts_with(x)), "{e}");
            }
        }
        assert_eq!(
            html("<a href='x'>&\u{1b}"),
            "&lt;a href=&#39;x&#39;&gt;&amp;\\u{1b}"
        );
    }

    #[test]
    fn script_json_is_the_same_json_without_a_character_that_changes_the_tokenizer() {
        for s in HOSTILE {
            let json = serde_json::to_string(&serde_json::json!({ "name": s })).unwrap();
            let e = script_json(&json);
            assert!(!e.contains(['<', '>', '&', '\u{2028}', '\u{2029}']), "{e}");
            let back: serde_json::Value = serde_json::from_str(&e).unwrap();
            assert_eq!(back["name"], *s);
        }
        assert_eq!(
            script_json(r#""<!--<script""#),
            r#""\u003c!--\u003cscript""#
        );
    }

    #[test]
    fn markdown_cannot_end_a_row_or_open_markup() {
        for s in HOSTILE {
            let e = markdown(s);
            assert!(!raw_controls(&e), "{s:?}: {e}");
            // Every special character is behind a backslash that is not itself escaped.
            let chars: Vec<char> = e.chars().collect();
            let mut i = 0;
            while let Some(&c) = chars.get(i) {
                if c == '\\' {
                    i += 2;
                    continue;
                }
                assert!(!MARKDOWN_SPECIAL.contains(&c), "{s:?}: {e}");
                i += 1;
            }
        }
        assert_eq!(markdown("a|b\n#c"), "a\\|b\\\\n\\#c");
        assert_eq!(markdown("![i](u)"), "!\\[i\\](u)");
    }

    #[test]
    fn markdown_code_is_one_code_span_on_one_line() {
        for s in HOSTILE {
            let e = markdown_code(s);
            assert!(!raw_controls(&e), "{s:?}: {e}");
            assert!(!e.replace("\\|", "").contains('|'), "{e}");
        }
        assert_eq!(markdown_code("a`b"), "``a`b``");
        assert_eq!(markdown_code("`x"), "`` `x ``");
        assert_eq!(markdown_code("a|b"), "`a\\|b`");
    }

    #[test]
    fn prometheus_labels_escape_backslash_quote_and_line_feed() {
        assert_eq!(prometheus_label("team-0"), "team-0");
        assert_eq!(prometheus_label("ends-in\\"), "ends-in\\\\");
        assert_eq!(
            prometheus_label(HOSTILE[0]),
            "x\\\"} 1\\nhpacalc_desired_replicas{namespace=\\\"kube-system\\\",\
             horizontalpodautoscaler=\\\"forged\\\"} 999"
        );
        for s in HOSTILE {
            let e = prometheus_label(s);
            assert!(!e.contains('\n'), "{e}");
            // Every `"` is escaped: the value cannot end early.
            let mut escaped = false;
            for c in e.chars() {
                assert!(escaped || c != '"', "{e}");
                escaped = !escaped && c == '\\';
            }
            assert!(!escaped, "a dangling backslash: {e}");
        }
    }
}
