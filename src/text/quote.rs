//! Git's C-style path quoting (`"dir/\303\274.txt"`): read back into UTF-8, and written as git
//! writes it.

/// The byte index just past the closing quote of a C-quoted string that starts `s`.
pub fn quoted_end(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// A path as git printed it: C-quoted (`"dir/\303\274.txt"`) or raw. Anything that is not one
/// well-formed quoted string is taken as raw.
pub fn unquote(printed: &str) -> String {
    let Some(inner) = printed
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .filter(|_| quoted_end(printed) == Some(printed.len()))
    else {
        return printed.to_string();
    };
    let bytes = inner.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        i += 1;
        if b != b'\\' || i >= bytes.len() {
            out.push(b);
            continue;
        }
        let e = bytes[i];
        i += 1;
        let plain = match e {
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b't' => Some(b'\t'),
            b'n' => Some(b'\n'),
            b'v' => Some(0x0b),
            b'f' => Some(0x0c),
            b'r' => Some(b'\r'),
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            _ => None,
        };
        if let Some(p) = plain {
            out.push(p);
            continue;
        }
        let octal = |c: u8| (b'0'..=b'7').contains(&c);
        if octal(e) && i + 2 <= bytes.len() {
            let (d2, d3) = (bytes[i], bytes[i + 1]);
            if octal(d2) && octal(d3) {
                let v =
                    (u32::from(e - b'0') << 6) | (u32::from(d2 - b'0') << 3) | u32::from(d3 - b'0');
                if let Ok(v) = u8::try_from(v) {
                    out.push(v);
                    i += 2;
                    continue;
                }
            }
        }
        // An escape git never writes: keep it as it stands.
        out.push(b'\\');
        out.push(e);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `prefix` + `path` as git prints a path in a diff header: C-quoted when the path holds a
/// quote, a backslash, a control character or a byte outside ASCII (`core.quotePath`'s
/// default), raw otherwise.
pub fn quote(prefix: &str, path: &str) -> String {
    let plain = path
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\');
    if plain {
        return format!("{prefix}{path}");
    }
    let mut s = String::from("\"");
    s.push_str(prefix);
    for b in path.bytes() {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            0x07 => s.push_str("\\a"),
            0x08 => s.push_str("\\b"),
            b'\t' => s.push_str("\\t"),
            b'\n' => s.push_str("\\n"),
            0x0b => s.push_str("\\v"),
            0x0c => s.push_str("\\f"),
            b'\r' => s.push_str("\\r"),
            0x20..=0x7e => s.push(char::from(b)),
            _ => s.push_str(&format!("\\{b:03o}")),
        }
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_is_what_git_prints_and_unquote_reads_it_back() {
        assert_eq!(quote("a/", "plain name.txt"), "a/plain name.txt");
        assert_eq!(quote("a/", "caf\u{e9}"), "\"a/caf\\303\\251\"");
        assert_eq!(quote("b/", "x\"y"), "\"b/x\\\"y\"");
        for path in [
            "caf\u{e9}/\u{fc}.txt",
            "tab\there",
            "back\\slash",
            "q\"uote",
            "nl\nx",
        ] {
            assert_eq!(unquote(&quote("", path)), path);
        }
    }
}
