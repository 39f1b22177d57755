//! `advanced.scalingModifiers.formula`: the part of expr-lang (github.com/expr-lang/expr) that
//! KEDA's formulas use, parsed into `scenario::keda::Expr`. Operators and their precedence are
//! expr-lang's (`parser/operator/operator.go`); anything else is refused with a message naming
//! the construct, so that hpacalc never evaluates a formula differently from KEDA.

use super::{BinaryOp, Expr, UnaryOp};

/// The built-in functions accepted, with their argument counts (`max`/`min` take 1 or more).
pub const FUNCTIONS: &[&str] = &[
    "float", "int", "abs", "ceil", "floor", "round", "max", "min",
];

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Number(f64),
    Integer(i64),
    Ident(String),
    Op(&'static str),
    LParen,
    RParen,
    Comma,
    Question,
    Colon,
    /// Something expr-lang knows but hpacalc does not evaluate (strings, arrays, `.`, ...).
    Unsupported(String),
}

/// Longer formulas are refused: parsing and evaluation recurse once per nesting level, and no
/// real formula comes near this.
pub const MAX_FORMULA_CHARS: usize = 1024;

/// Parses `text`; `names` are the trigger names the formula may use (expr's environment).
pub fn parse(text: &str, names: &[&str]) -> Result<Expr, String> {
    let length = text.chars().count();
    if length > MAX_FORMULA_CHARS {
        return Err(format!(
            "found a formula of {length} characters, expected at most {MAX_FORMULA_CHARS}"
        ));
    }
    let tokens = tokenize(text)?;
    let mut parser = Parser {
        tokens,
        pos: 0,
        names,
    };
    let expr = parser.expression(0)?;
    match parser.peek() {
        None => Ok(expr),
        Some(t) => Err(format!(
            "unexpected {} after a complete expression",
            describe(t)
        )),
    }
}

fn describe(t: &Token) -> String {
    match t {
        Token::Number(n) => format!("number {n}"),
        Token::Integer(n) => format!("number {n}"),
        Token::Ident(s) => format!("name `{s}`"),
        Token::Op(o) => format!("operator `{o}`"),
        Token::LParen => "`(`".to_string(),
        Token::RParen => "`)`".to_string(),
        Token::Comma => "`,`".to_string(),
        Token::Question => "`?`".to_string(),
        Token::Colon => "`:`".to_string(),
        Token::Unsupported(s) => format!("`{s}`"),
    }
}

const OPERATORS: &[&str] = &[
    "??", "**", "==", "!=", "<=", ">=", "&&", "||", "+", "-", "*", "/", "%", "^", "<", ">", "!",
];

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) {
            let start = i;
            while chars
                .get(i)
                .is_some_and(|c| c.is_ascii_digit() || *c == '.' || *c == '_')
            {
                i += 1;
            }
            if chars.get(i).is_some_and(|c| *c == 'e' || *c == 'E') {
                i += 1;
                if chars.get(i).is_some_and(|c| *c == '+' || *c == '-') {
                    i += 1;
                }
                while chars.get(i).is_some_and(char::is_ascii_digit) {
                    i += 1;
                }
            }
            let literal: String = chars
                .get(start..i)
                .unwrap_or_default()
                .iter()
                .filter(|c| **c != '_')
                .collect();
            if literal.contains(['.', 'e', 'E']) {
                let n: f64 = literal
                    .parse()
                    .map_err(|_| format!("`{literal}` is not a number"))?;
                out.push(Token::Number(n));
            } else {
                let n: i64 = literal
                    .parse()
                    .map_err(|_| format!("`{literal}` is not a number expr-lang accepts"))?;
                out.push(Token::Integer(n));
            }
            continue;
        }
        if c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while chars
                .get(i)
                .is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
            {
                i += 1;
            }
            let word: String = chars.get(start..i).unwrap_or_default().iter().collect();
            out.push(match word.as_str() {
                "and" => Token::Op("&&"),
                "or" => Token::Op("||"),
                "not" => Token::Op("!"),
                _ => Token::Ident(word),
            });
            continue;
        }
        let rest: String = chars.get(i..).unwrap_or_default().iter().take(2).collect();
        if let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(**op)) {
            // `?.` is expr's optional chaining, not `?`.
            out.push(Token::Op(op));
            i += op.len();
            continue;
        }
        i += 1;
        out.push(match c {
            '(' => Token::LParen,
            ')' => Token::RParen,
            ',' => Token::Comma,
            '?' if chars.get(i) == Some(&'.') => Token::Unsupported("?.".to_string()),
            '?' => Token::Question,
            ':' => Token::Colon,
            '"' | '\'' | '`' => Token::Unsupported("a string".to_string()),
            '[' | ']' => Token::Unsupported("an array".to_string()),
            '{' | '}' => Token::Unsupported("a map or predicate `{...}`".to_string()),
            '.' => Token::Unsupported(".".to_string()),
            '#' => Token::Unsupported("#".to_string()),
            '|' => Token::Unsupported("the pipe `|`".to_string()),
            other => Token::Unsupported(other.to_string()),
        });
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: Vec<Token>,
    pos: usize,
    names: &'a [&'a str],
}

/// expr-lang's binary precedence and associativity (right for `**` and `^`).
fn binary(op: &str) -> Option<(u32, bool, BinaryOp)> {
    Some(match op {
        "||" => (10, false, BinaryOp::Or),
        "&&" => (15, false, BinaryOp::And),
        "==" => (20, false, BinaryOp::Eq),
        "!=" => (20, false, BinaryOp::Ne),
        "<" => (20, false, BinaryOp::Lt),
        ">" => (20, false, BinaryOp::Gt),
        "<=" => (20, false, BinaryOp::Le),
        ">=" => (20, false, BinaryOp::Ge),
        "+" => (30, false, BinaryOp::Add),
        "-" => (30, false, BinaryOp::Sub),
        "*" => (60, false, BinaryOp::Mul),
        "/" => (60, false, BinaryOp::Div),
        "%" => (60, false, BinaryOp::Mod),
        "**" | "^" => (100, true, BinaryOp::Pow),
        "??" => (500, false, BinaryOp::Coalesce),
        _ => return None,
    })
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn expect(&mut self, want: &Token, what: &str) -> Result<(), String> {
        match self.next() {
            Some(t) if &t == want => Ok(()),
            Some(t) => Err(format!("expected {what}, found {}", describe(&t))),
            None => Err(format!("expected {what}, found the end of the formula")),
        }
    }

    // Port of parseExpression (expr-lang parser/parser.go): precedence climbing, with the
    // conditional `? :` taken only at the lowest level.
    fn expression(&mut self, min: u32) -> Result<Expr, String> {
        let mut left = self.primary()?;
        while let Some(Token::Op(op)) = self.peek().cloned() {
            let Some((prec, right_assoc, bin)) = binary(op) else {
                break;
            };
            if prec < min {
                break;
            }
            self.pos += 1;
            let right = self.expression(if right_assoc { prec } else { prec + 1 })?;
            left = Expr::Binary(bin, Box::new(left), Box::new(right));
        }
        if min == 0 && self.peek() == Some(&Token::Question) {
            self.pos += 1;
            let yes = self.expression(0)?;
            self.expect(&Token::Colon, "`:` of the conditional")?;
            let no = self.expression(0)?;
            left = Expr::Ternary(Box::new(left), Box::new(yes), Box::new(no));
        }
        Ok(left)
    }

    fn primary(&mut self) -> Result<Expr, String> {
        let Some(token) = self.next() else {
            return Err("the formula ends where a value was expected".to_string());
        };
        match token {
            Token::Op(op @ ("-" | "+" | "!")) => {
                let (prec, unary) = match op {
                    "-" => (90, UnaryOp::Neg),
                    "+" => (90, UnaryOp::Plus),
                    _ => (50, UnaryOp::Not),
                };
                let operand = self.expression(prec)?;
                Ok(Expr::Unary(unary, Box::new(operand)))
            }
            Token::Number(n) => Ok(Expr::Number(n)),
            Token::Integer(n) => Ok(Expr::Integer(n)),
            Token::LParen => {
                let inner = self.expression(0)?;
                self.expect(&Token::RParen, "`)`")?;
                Ok(inner)
            }
            Token::Ident(name) => self.identifier(name),
            other => Err(format!(
                "{} is not supported by hpacalc's formula evaluator (supported: numbers, trigger \
                 names, + - * / % ** ^, comparisons, && || !, ?:, ??, and {})",
                describe(&other),
                FUNCTIONS.join(", ")
            )),
        }
    }

    fn identifier(&mut self, name: String) -> Result<Expr, String> {
        if self.peek() == Some(&Token::LParen) {
            self.pos += 1;
            if !FUNCTIONS.contains(&name.as_str()) {
                return Err(format!(
                    "function `{name}` is not supported by hpacalc's formula evaluator \
                     (supported: {})",
                    FUNCTIONS.join(", ")
                ));
            }
            let mut args = Vec::new();
            if self.peek() == Some(&Token::RParen) {
                self.pos += 1;
            } else {
                loop {
                    args.push(self.expression(0)?);
                    match self.next() {
                        Some(Token::Comma) => continue,
                        Some(Token::RParen) => break,
                        Some(t) => {
                            return Err(format!(
                                "expected `,` or `)` in the call of {name}, found {}",
                                describe(&t)
                            ));
                        }
                        None => return Err(format!("the call of {name} is not closed")),
                    }
                }
            }
            let arity_ok = match name.as_str() {
                "max" | "min" => !args.is_empty(),
                _ => args.len() == 1,
            };
            if !arity_ok {
                return Err(format!(
                    "{name} takes {}, found {} argument(s)",
                    if matches!(name.as_str(), "max" | "min") {
                        "one or more arguments"
                    } else {
                        "one argument"
                    },
                    args.len()
                ));
            }
            return Ok(Expr::Call(name, args));
        }
        match name.as_str() {
            "true" => Ok(Expr::Bool(true)),
            "false" => Ok(Expr::Bool(false)),
            "nil" => Ok(Expr::Nil),
            _ if self.names.contains(&name.as_str()) => Ok(Expr::Var(name)),
            // expr.Compile with expr.Env(triggersMap) rejects an unknown name.
            _ => Err(format!(
                "unknown name `{name}`: the formula can use the names of the non-cpu/memory \
                 triggers ({})",
                if self.names.is_empty() {
                    "none has a name".to_string()
                } else {
                    self.names.join(", ")
                }
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(n: &str) -> Box<Expr> {
        Box::new(Expr::Var(n.to_string()))
    }

    #[test]
    fn precedence_follows_expr_lang() {
        let e = parse("a + b * 2", &["a", "b"]).unwrap();
        assert_eq!(
            e,
            Expr::Binary(
                BinaryOp::Add,
                var("a"),
                Box::new(Expr::Binary(
                    BinaryOp::Mul,
                    var("b"),
                    Box::new(Expr::Integer(2))
                ))
            )
        );
    }

    #[test]
    fn coalesce_binds_tighter_than_arithmetic() {
        let e = parse("a ?? 1 + b", &["a", "b"]).unwrap();
        assert!(matches!(e, Expr::Binary(BinaryOp::Add, _, _)));
    }

    #[test]
    fn power_is_right_associative() {
        let e = parse("2 ** 3 ** 2", &[]).unwrap();
        let Expr::Binary(BinaryOp::Pow, _, right) = e else {
            panic!("not a power")
        };
        assert!(matches!(*right, Expr::Binary(BinaryOp::Pow, _, _)));
    }

    #[test]
    fn conditional_at_lowest_level() {
        let e = parse("a > 2 ? a + b : 1", &["a", "b"]).unwrap();
        assert!(matches!(e, Expr::Ternary(_, _, _)));
    }

    #[test]
    fn unknown_names_and_constructs_are_errors() {
        let e = parse("a + c", &["a"]).unwrap_err();
        assert!(e.contains("unknown name `c`"), "{e}");
        let e = parse("count([a], {# > 1})", &["a"]).unwrap_err();
        assert!(e.contains("function `count`"), "{e}");
        let e = parse("a + \"x\"", &["a"]).unwrap_err();
        assert!(e.contains("a string"), "{e}");
        let e = parse("(a", &["a"]).unwrap_err();
        assert!(e.contains("`)`"), "{e}");
    }

    #[test]
    fn overlong_formulas_are_refused_before_parsing() {
        let deep = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
        assert!(parse(&deep, &[]).unwrap_err().contains("at most 1024"));
        let nested = format!("{}1{}", "(".repeat(500), ")".repeat(500));
        assert_eq!(parse(&nested, &[]), Ok(Expr::Integer(1)));
    }

    #[test]
    fn word_operators() {
        let e = parse("not (a > 1 and a < 3) or false", &["a"]).unwrap();
        assert!(matches!(e, Expr::Binary(BinaryOp::Or, _, _)));
    }
}
