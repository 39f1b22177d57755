//! Label selectors in kubectl's syntax (`-l/--selector`), as `labels.Parse` in
//! k8s.io/apimachinery `pkg/labels/selector.go` reads them: comma-separated requirements
//! `key=value`, `key==value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`, `key` (exists),
//! `!key` (does not exist), and `key>1` / `key<1` (integer comparisons).
//!
//! The controller lists pods with the target's selector and asks the metrics APIs with the same
//! selector; hpacalc applies it to captured files that may hold more than the target's pods.

use std::fmt;

/// A parsed selector: every requirement must hold. An empty selector matches everything.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Selector {
    requirements: Vec<Requirement>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Requirement {
    key: String,
    op: Op,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    In(Vec<String>),
    NotIn(Vec<String>),
    Exists,
    DoesNotExist,
    GreaterThan(i64),
    LessThan(i64),
}

/// A selector as a `metav1.LabelSelector` holds it: matchLabels pairs, and the expressions
/// `(key, operator, values)`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LabelSelectorParts {
    pub labels: Vec<(String, String)>,
    pub expressions: Vec<(String, &'static str, Vec<String>)>,
}

/// One token of the selector text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Comma,
    Open,
    Close,
    Not,
    Eq,
    DoubleEq,
    NotEq,
    Gt,
    Lt,
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Word(w) => write!(f, "\"{w}\""),
            Token::Comma => f.write_str("\",\""),
            Token::Open => f.write_str("\"(\""),
            Token::Close => f.write_str("\")\""),
            Token::Not => f.write_str("\"!\""),
            Token::Eq => f.write_str("\"=\""),
            Token::DoubleEq => f.write_str("\"==\""),
            Token::NotEq => f.write_str("\"!=\""),
            Token::Gt => f.write_str("\">\""),
            Token::Lt => f.write_str("\"<\""),
        }
    }
}

fn lex(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            ',' => tokens.push(Token::Comma),
            '(' => tokens.push(Token::Open),
            ')' => tokens.push(Token::Close),
            '>' => tokens.push(Token::Gt),
            '<' => tokens.push(Token::Lt),
            '!' if chars.peek() == Some(&'=') => {
                chars.next();
                tokens.push(Token::NotEq);
            }
            '!' => tokens.push(Token::Not),
            '=' if chars.peek() == Some(&'=') => {
                chars.next();
                tokens.push(Token::DoubleEq);
            }
            '=' => tokens.push(Token::Eq),
            c => {
                let mut word = String::from(c);
                while let Some(&next) = chars.peek() {
                    if next.is_whitespace() || ",()!=<>".contains(next) {
                        break;
                    }
                    word.push(next);
                    chars.next();
                }
                tokens.push(Token::Word(word));
            }
        }
    }
    tokens
}

impl Selector {
    /// Parses kubectl's selector syntax; the error says what was found and what was expected.
    pub fn parse(text: &str) -> Result<Selector, String> {
        let tokens = lex(text);
        let mut parser = Parser { tokens, at: 0 };
        let mut requirements = Vec::new();
        if parser.peek().is_none() {
            return Ok(Selector { requirements });
        }
        loop {
            requirements.push(parser.requirement()?);
            match parser.next() {
                None => break,
                Some(Token::Comma) => {}
                Some(other) => {
                    return Err(format!(
                        "found {other} after a requirement, expected \",\" or the end"
                    ));
                }
            }
        }
        Ok(Selector { requirements })
    }

    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// The requirements as a `metav1.LabelSelector`'s parts: each `key=value` (a one-value `In`)
    /// a matchLabels pair, every other an expression `(key, operator, values)` with the
    /// operator's name (`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`).
    pub fn label_selector_parts(&self) -> LabelSelectorParts {
        let mut parts = LabelSelectorParts::default();
        for r in &self.requirements {
            let key = r.key.clone();
            let (operator, values) = match &r.op {
                Op::In(values) if values.len() == 1 && !parts.labels.iter().any(|l| l.0 == key) => {
                    parts.labels.push((key, values.concat()));
                    continue;
                }
                Op::In(values) => ("In", values.clone()),
                Op::NotIn(values) => ("NotIn", values.clone()),
                Op::Exists => ("Exists", Vec::new()),
                Op::DoesNotExist => ("DoesNotExist", Vec::new()),
                Op::GreaterThan(n) => ("Gt", vec![n.to_string()]),
                Op::LessThan(n) => ("Lt", vec![n.to_string()]),
            };
            parts.expressions.push((key, operator, values));
        }
        parts
    }

    /// Whether labels (looked up by `get`) satisfy every requirement.
    pub fn matches<'l>(&self, get: impl Fn(&str) -> Option<&'l str>) -> bool {
        self.requirements.iter().all(|r| {
            let value = get(&r.key);
            match &r.op {
                Op::In(values) => value.is_some_and(|v| values.iter().any(|x| x == v)),
                Op::NotIn(values) => value.is_none_or(|v| values.iter().all(|x| x != v)),
                Op::Exists => value.is_some(),
                Op::DoesNotExist => value.is_none(),
                Op::GreaterThan(n) => value.and_then(|v| v.parse::<i64>().ok()) > Some(*n),
                Op::LessThan(n) => value
                    .and_then(|v| v.parse::<i64>().ok())
                    .is_some_and(|v| v < *n),
            }
        })
    }

    /// Whether a label list (`(key, value)` pairs) satisfies the selector. Each requirement
    /// looks its key up by binary search (sorting the labels first when they are not), so a
    /// selector of many requirements on an object of many labels costs n log n, not n².
    pub fn matches_pairs<K: AsRef<str>, V: AsRef<str>>(&self, labels: &[(K, V)]) -> bool {
        if labels.len() <= 16 || self.requirements.len() <= 1 {
            return self.matches(|key| {
                (labels.iter())
                    .find(|(k, _)| k.as_ref() == key)
                    .map(|(_, v)| v.as_ref())
            });
        }
        let mut sorted: Vec<(&str, &str)> = (labels.iter())
            .map(|(k, v)| (k.as_ref(), v.as_ref()))
            .collect();
        // The first of a repeated key wins, as the linear search finds it.
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        sorted.dedup_by(|later, first| later.0 == first.0);
        self.matches(|key| {
            (sorted.binary_search_by(|(k, _)| (*k).cmp(key)).ok())
                .and_then(|i| sorted.get(i))
                .map(|(_, v)| *v)
        })
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.requirements.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            let key = &r.key;
            match &r.op {
                Op::In(v) if v.len() == 1 => write!(f, "{key}={}", v.join(""))?,
                Op::NotIn(v) if v.len() == 1 => write!(f, "{key}!={}", v.join(""))?,
                Op::In(v) => write!(f, "{key} in ({})", v.join(","))?,
                Op::NotIn(v) => write!(f, "{key} notin ({})", v.join(","))?,
                Op::Exists => write!(f, "{key}")?,
                Op::DoesNotExist => write!(f, "!{key}")?,
                Op::GreaterThan(n) => write!(f, "{key}>{n}")?,
                Op::LessThan(n) => write!(f, "{key}<{n}")?,
            }
        }
        Ok(())
    }
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    fn requirement(&mut self) -> Result<Requirement, String> {
        if self.peek() == Some(&Token::Not) {
            self.next();
            let key = self.key()?;
            return Ok(Requirement {
                key,
                op: Op::DoesNotExist,
            });
        }
        let key = self.key()?;
        let op = match self.peek() {
            None | Some(Token::Comma) => Op::Exists,
            Some(Token::Eq | Token::DoubleEq) => {
                self.next();
                Op::In(vec![self.value()?])
            }
            Some(Token::NotEq) => {
                self.next();
                Op::NotIn(vec![self.value()?])
            }
            Some(Token::Gt | Token::Lt) => {
                let greater = self.next() == Some(Token::Gt);
                let text = self.value()?;
                let n = text.parse::<i64>().map_err(|_| {
                    format!(
                        "found {} after {key}, expected an integer",
                        crate::error::quoted(&text)
                    )
                })?;
                if greater {
                    Op::GreaterThan(n)
                } else {
                    Op::LessThan(n)
                }
            }
            Some(Token::Word(w)) if w == "in" || w == "notin" => {
                let inclusion = w == "in";
                self.next();
                let values = self.value_set(&key)?;
                if inclusion {
                    Op::In(values)
                } else {
                    Op::NotIn(values)
                }
            }
            Some(other) => {
                return Err(format!(
                    "found {other} after the key {key}, expected =, ==, !=, in, notin, or \",\""
                ));
            }
        };
        Ok(Requirement { key, op })
    }

    fn key(&mut self) -> Result<String, String> {
        match self.next() {
            Some(Token::Word(w)) => {
                validate_key(&w)?;
                Ok(w)
            }
            Some(other) => Err(format!("found {other}, expected a label key")),
            None => Err("found the end, expected a label key".to_string()),
        }
    }

    /// A value after `=`, `==` or `!=`; it may be empty (`tier=` selects an empty value).
    fn value(&mut self) -> Result<String, String> {
        match self.peek() {
            Some(Token::Word(w)) => {
                let w = w.clone();
                self.next();
                validate_value(&w)?;
                Ok(w)
            }
            None | Some(Token::Comma) => Ok(String::new()),
            Some(other) => Err(format!("found {other}, expected a label value")),
        }
    }

    fn value_set(&mut self, key: &str) -> Result<Vec<String>, String> {
        match self.next() {
            Some(Token::Open) => {}
            Some(other) => {
                return Err(format!(
                    "found {other} after {key} in/notin, expected \"(\""
                ));
            }
            None => {
                return Err(format!(
                    "found the end after {key} in/notin, expected \"(\""
                ));
            }
        }
        let mut values = Vec::new();
        loop {
            match self.next() {
                Some(Token::Word(w)) => {
                    validate_value(&w)?;
                    values.push(w);
                    match self.next() {
                        Some(Token::Comma) => {}
                        Some(Token::Close) => break,
                        Some(other) => {
                            return Err(format!(
                                "found {other} in the values of {key}, expected \",\" or \")\""
                            ));
                        }
                        None => {
                            return Err(format!(
                                "found the end in the values of {key}, expected \")\""
                            ));
                        }
                    }
                }
                // `in ()`, `in (a,)` and `in (,a)` hold an empty value, as in labels.Parse.
                Some(Token::Comma) => values.push(String::new()),
                Some(Token::Close) => {
                    values.push(String::new());
                    break;
                }
                Some(other) => {
                    return Err(format!(
                        "found {other} in the values of {key}, expected a value"
                    ));
                }
                None => {
                    return Err(format!(
                        "found the end in the values of {key}, expected \")\""
                    ));
                }
            }
        }
        Ok(values)
    }
}

/// A label name part: at most 63 characters, alphanumeric at both ends, `-`, `_`, `.` inside.
fn is_label_name(text: &str) -> bool {
    let bytes = text.as_bytes();
    !text.is_empty()
        && text.len() <= 63
        && bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// `[prefix/]name`, the prefix a DNS subdomain.
fn validate_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    let prefix_ok = prefix.is_none_or(|p| {
        !p.is_empty()
            && p.len() <= 253
            && p.split('.').all(|part| {
                is_label_name(part)
                    && part
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            })
    });
    if prefix_ok && is_label_name(name) {
        Ok(())
    } else {
        Err(format!(
            "found {found}, expected a label key ([prefix/]name: letters, digits, '-', '_', '.', \
             at most 63 characters)",
            found = crate::error::quoted(key)
        ))
    }
}

fn validate_value(value: &str) -> Result<(), String> {
    if value.is_empty() || is_label_name(value) {
        Ok(())
    } else {
        Err(format!(
            "found {found}, expected a label value (letters, digits, '-', '_', '.', at most \
             63 characters)",
            found = crate::error::quoted(value)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
        pairs.to_vec()
    }

    #[test]
    fn each_operator_selects_as_kubectl_does() {
        let web = labels(&[("app", "web"), ("tier", "front"), ("rev", "7")]);
        let worker = labels(&[("app", "worker"), ("rev", "2")]);
        let none = labels(&[]);
        // (selector, matches web, matches worker, matches a pod without labels)
        let cases = [
            ("", true, true, true),
            ("app=web", true, false, false),
            ("app==web", true, false, false),
            ("app = web", true, false, false),
            ("app!=web", false, true, true),
            ("app in (web, worker)", true, true, false),
            ("app in (api)", false, false, false),
            ("app notin (web)", false, true, true),
            ("tier", true, false, false),
            ("!tier", false, true, true),
            ("app=web,tier=front", true, false, false),
            ("app,tier!=back", true, true, false),
            ("rev>5", true, false, false),
            ("rev<5", false, true, false),
            ("tier=", false, false, false),
            ("tier notin ()", true, true, true),
        ];
        for (text, on_web, on_worker, on_none) in cases {
            let s = Selector::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(s.matches_pairs(&web), on_web, "{text} on web");
            assert_eq!(s.matches_pairs(&worker), on_worker, "{text} on worker");
            assert_eq!(s.matches_pairs(&none), on_none, "{text} without labels");
        }
    }

    #[test]
    fn prefixed_keys_are_accepted() {
        let s = Selector::parse("app.kubernetes.io/name=web").unwrap();
        assert!(s.matches_pairs(&[("app.kubernetes.io/name", "web")]));
        assert!(!s.is_empty());
        assert!(Selector::parse("").unwrap().is_empty());
    }

    #[test]
    fn malformed_selectors_say_what_was_found_and_expected() {
        let cases = [
            ("app=web,", "found the end, expected a label key"),
            ("=web", "found \"=\", expected a label key"),
            (
                "app in web",
                "found \"web\" after app in/notin, expected \"(\"",
            ),
            (
                "app in (web",
                "found the end in the values of app, expected \")\"",
            ),
            ("app>x", "found \"x\" after app, expected an integer"),
            ("app=web tier=x", "found \"tier\" after a requirement"),
            (
                "a b",
                "found \"b\" after the key a, expected =, ==, !=, in, notin",
            ),
            ("-app=web", "found \"-app\", expected a label key"),
            ("app=we$b", "found \"we$b\", expected a label value"),
        ];
        for (text, message) in cases {
            let err = Selector::parse(text).unwrap_err();
            assert!(err.starts_with(message), "{text}: {err}");
        }
    }

    #[test]
    fn selectors_print_in_kubectl_syntax() {
        let s = Selector::parse("app = web, tier in (a,b), !canary, rev>3").unwrap();
        assert_eq!(s.to_string(), "app=web,tier in (a,b),!canary,rev>3");
    }
}
