//! Untrusted text made inert, for every report. Implementations nobody has read write their
//! stderr, results, messages and handshake; folder names become implementation and suite names.
//! None of it may act on the grader's terminal, markup, markdown renderer or browser, and none
//! of it may make a report unbounded. Each report escapes for its medium here and nowhere else.
//!
//! Characters that can hide, reorder or rewrite what a reader sees (C0 and C1 controls, DEL,
//! bidi overrides and isolates, the XML non-characters U+FFFE/U+FFFF) are shown as escapes in
//! every medium (`\x1b`, `\r`, `\u{7f}`, `\u{202e}`), so nothing is lost and nothing is
//! interpreted; newlines and tabs stay as layout where a report has multi-line text.

use serde_json::Value;
use std::borrow::Cow;
use std::fmt::Write as _;

/// The most of one line of a report that is shown: a value in a diff line, a stderr line, a
/// name, the operation or result of the HTML report's details.
pub const LINE_LIMIT: usize = 4 << 10;
/// The most of one case's report (its diff, its error and stderr) that is shown.
pub const REPORT_LIMIT: usize = 16 << 10;

/// `text` cut to at most `limit` bytes (at a character boundary), with a marker saying how much
/// was cut.
pub fn clip(text: &str, limit: usize) -> Cow<'_, str> {
    if text.len() <= limit {
        return Cow::Borrowed(text);
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!(
        "{}… [cut {} bytes]",
        &text[..end],
        thousands(text.len() - end)
    ))
}

/// A case's report bounded: each line to `LINE_LIMIT`, then the whole to `REPORT_LIMIT`, so that
/// one huge value leaves the rest of the diff readable.
pub fn clip_report(text: &str) -> Cow<'_, str> {
    if text.len() <= LINE_LIMIT {
        return Cow::Borrowed(text);
    }
    let lines: Vec<Cow<str>> = text.split('\n').map(|l| clip(l, LINE_LIMIT)).collect();
    let joined = lines.join("\n");
    Cow::Owned(clip(&joined, REPORT_LIMIT).into_owned())
}

pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// How `c` is shown when it must not act: `None` for an ordinary character. With `layout`,
/// newline and tab are ordinary.
fn escaped(c: char, layout: bool) -> Option<String> {
    let code = c as u32;
    match c {
        '\n' | '\t' if layout => None,
        '\n' => Some("\\n".into()),
        '\t' => Some("\\t".into()),
        '\r' => Some("\\r".into()),
        _ if code < 0x20 => Some(format!("\\x{code:02x}")),
        // DEL, C1 controls (U+009B is a one-byte CSI), bidi marks, embeddings, overrides and
        // isolates, and the two characters XML 1.0 forbids above the controls.
        '\u{7f}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}'
        | '\u{fffe}'
        | '\u{ffff}' => Some(format!("\\u{{{code:x}}}")),
        // Characters that show nothing or change nothing visible, so that two names that differ
        // only by them read the same: soft hyphen, zero-width spaces and joiners, word joiner and
        // invisible operators, the byte order mark, Hangul fillers, the Mongolian vowel
        // separator, variation selectors, tag characters, and combining marks (an NFD "é"
        // shows as e\u{301}, unlike its NFC spelling).
        _ if invisible(c) => Some(format!("\\u{{{code:x}}}")),
        _ => None,
    }
}

/// What two names are compared by: their NFC form, case folded, without the characters a reader
/// cannot see; two names with one key would read alike in a report.
pub fn name_key(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization as _;
    name.nfc()
        .filter(|c| !invisible(*c) && escaped(*c, false).is_none())
        .flat_map(char::to_lowercase)
        .collect()
}

/// See [`escaped`]: what a reader cannot see, or cannot tell from its absence.
fn invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}'
        | '\u{300}'..='\u{36f}'
        | '\u{115f}'
        | '\u{1160}'
        | '\u{17b4}'
        | '\u{17b5}'
        | '\u{180b}'..='\u{180e}'
        | '\u{1ab0}'..='\u{1aff}'
        | '\u{1dc0}'..='\u{1dff}'
        | '\u{200b}'..='\u{200d}'
        | '\u{2060}'..='\u{2064}'
        | '\u{20d0}'..='\u{20ff}'
        | '\u{3164}'
        | '\u{fe00}'..='\u{fe0f}'
        | '\u{fe20}'..='\u{fe2f}'
        | '\u{feff}'
        | '\u{ffa0}'
        | '\u{e0000}'..='\u{e007f}'
        | '\u{e0100}'..='\u{e01ef}')
}

fn visible(text: &str, layout: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| escaped(c, layout).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match escaped(c, layout) {
            Some(e) => out.push_str(&e),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Multi-line text for a terminal (a diff, stderr, a traceback): newlines and tabs stay layout,
/// every other control shows as an escape. hookcheck's own colours are added after this.
pub fn terminal(text: &str) -> String {
    visible(text, true).into_owned()
}

/// One-line text for a terminal (a name, a reason in a table row): newlines and tabs escaped
/// too, so a name cannot start a line of its own.
pub fn terminal_line(text: &str) -> String {
    visible(text, false).into_owned()
}

/// Text for XML (JUnit) and HTML, in content and quoted attributes. Characters XML 1.0 forbids
/// (C0 controls but tab and newline, U+FFFE, U+FFFF) are escaped as visible text rather than
/// dropped, so a CI page shows what the implementation wrote; so are C1 controls and bidi
/// overrides, which would garble or reorder what the reader sees. A carriage return is shown
/// too: XML would turn it into a newline.
pub fn markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => match escaped(c, true) {
                Some(e) => out.push_str(&e),
                None => out.push(c),
            },
        }
    }
    out
}

/// Text for one markdown table cell, as plain text: controls and newlines shown escaped; HTML's
/// `<`, `>` and `&` as entities; every character CommonMark or GitHub's tables give a meaning
/// (emphasis, code spans, links, images, autolinks, cell breaks, headings) backslash-escaped,
/// so no renderer makes markup, a link or an image of it.
pub fn markdown(text: &str) -> String {
    let shown = visible(text, false);
    let mut out = String::with_capacity(shown.len() + 8);
    for c in shown.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            // `:` and `.` too: GitHub makes links of bare `http://` and `www.` text.
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '!' | '|' | '#' | '~' | ':' | '.' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Untrusted text (a name, a line in the brief's terms) as a markdown table cell: one line
/// bounded, and inert in any CommonMark or GitHub renderer, HTML allowed or not.
pub fn markdown_cell(text: &str) -> String {
    markdown(&clip(text, LINE_LIMIT))
}

/// A name as a markdown code span when nothing in it could close the span or mean something
/// inside it (backticks, a cell break, HTML, a backslash, a control); otherwise as escaped plain
/// text, since a code span shows entities and backslashes literally.
pub fn markdown_code(text: &str) -> String {
    let plain = text
        .chars()
        .all(|c| escaped(c, false).is_none() && !matches!(c, '`' | '|' | '<' | '>' | '&' | '\\'));
    if plain && !text.is_empty() && !text.starts_with(' ') && !text.ends_with(' ') {
        format!("`{text}`")
    } else {
        markdown(text)
    }
}

/// A JSON value as the text of a `<script type="application/json">` element: `<`, `>` and `&`
/// as `\u003c`, `\u003e`, `\u0026`, so neither `</script>` nor `<!--` (which makes the parser
/// look for `-->` first and swallow the page's own script) can occur, and U+2028 and U+2029,
/// which some JavaScript parsers take for line ends. JSON reads them all back unchanged.
pub fn script_json(value: &Value) -> String {
    let text = value.to_string();
    let mut out = String::with_capacity(text.len() + 64);
    for c in text.chars() {
        match c {
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Untrusted text for the HTML report's data, which the page's script shows with
/// `textContent`: its controls and bidi overrides visible, as in the rest of the page. The
/// caller bounds it first.
pub fn data(text: &str) -> String {
    visible(text, true).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn terminal_text_shows_controls_and_keeps_layout() {
        assert_eq!(
            terminal("a\x1b[1A\x1b[2K\r\u{7f}\u{9b}\u{202e}b\n\tc"),
            "a\\x1b[1A\\x1b[2K\\r\\u{7f}\\u{9b}\\u{202e}b\n\tc"
        );
        assert_eq!(terminal_line("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(terminal("plain ✓"), "plain ✓");
    }

    #[test]
    fn markup_escapes_what_xml_forbids_and_what_html_means() {
        assert_eq!(
            markup("<a href=\"x\">&'\u{fffe}\u{ffff}\u{1}\u{b}\u{c}\r\t\n"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;\\u{fffe}\\u{ffff}\\x01\\x0b\\x0c\\r\t\n"
        );
    }

    /// Every spelling of "alice" an impersonator tried shows apart from the plain one, in the
    /// terminal, markdown and markup alike, and all of them have the plain one's key.
    #[test]
    fn invisible_characters_are_shown_and_names_that_read_alike_share_a_key() {
        let tries = [
            "al\u{200b}ice",
            "\u{feff}alice",
            "ali\u{ad}ce",
            "alice\u{3164}",
            "alice\u{fe0f}",
            "alice\u{e0041}",
            "alic\u{34f}e",
            "ALICE",
        ];
        for name in tries {
            assert_eq!(name_key(name), "alice", "{name:?}");
            if name != "ALICE" {
                for shown in [terminal_line(name), markdown(name), markup(name)] {
                    assert!(shown.contains("\\u{"), "{name:?} shown as {shown:?}");
                }
            }
        }
        let (nfc, nfd) = ("jos\u{e9}", "jose\u{301}");
        assert_eq!(name_key(nfc), name_key(nfd));
        assert_ne!(terminal_line(nfc), terminal_line(nfd));
        assert_eq!(terminal_line("Zoë 名前"), "Zoë 名前");
    }

    #[test]
    fn markdown_leaves_no_markup() {
        let md =
            markdown("![x](http://h/x.png) [y](javascript:alert(1)) <img> `a` *b* _c_ |\r\n\\");
        assert!(!md.contains('<') && !md.contains("](") && !md.contains("!["));
        assert!(!md.contains('\r') && !md.contains('\n'));
        assert!(md.contains("\\`a\\`") && md.contains("\\|") && md.ends_with("\\\\"));
        assert_eq!(markdown_code("retries::a-b"), "`retries::a-b`");
        assert_eq!(markdown_code("a`b"), "a\\`b");
        assert_eq!(markdown_code("a<b"), "a&lt;b");
    }

    #[test]
    fn script_data_has_no_angle_brackets_and_reads_back() {
        let v = json!({"x": "<!--<script></script>&\u{2028}"});
        let text = script_json(&v);
        assert!(!text.contains(['<', '>', '&', '\u{2028}']));
        assert_eq!(serde_json::from_str::<Value>(&text).ok(), Some(v));
    }

    #[test]
    fn long_text_is_cut_with_a_marker() {
        let long = "é".repeat(3000);
        let cut = clip(&long, 4095);
        assert!(cut.starts_with(&"é".repeat(2047)));
        assert!(cut.ends_with("… [cut 1,906 bytes]"), "{cut}");
        assert_eq!(clip("short", 10), "short");
        let report = format!("head\n{}\ntail", "x".repeat(1 << 20));
        let cut = clip_report(&report);
        assert!(
            cut.len() < LINE_LIMIT + 64 && cut.ends_with("\ntail"),
            "{}",
            cut.len()
        );
        let many = "y\n".repeat(1 << 20);
        assert!(clip_report(&many).len() < REPORT_LIMIT + 64);
        assert_eq!(thousands(998_976), "998,976");
    }
}
