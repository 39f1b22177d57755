//! Evaluation of a scaling-modifiers formula as expr-lang runs it (`vm/runtime` of
//! github.com/expr-lang/expr): integers stay integers under `+ - * %`, `/` and `**` give floats,
//! `??` replaces nil, and an operation on nil is an error, as it is for KEDA.

use std::collections::BTreeMap;

use super::{BinaryOp, Expr, UnaryOp};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Bool(bool),
    Nil,
}

impl Value {
    fn type_name(self) -> &'static str {
        match self {
            Value::Int(_) => "int",
            Value::Float(_) => "float64",
            Value::Bool(_) => "bool",
            Value::Nil => "<nil>",
        }
    }

    #[allow(clippy::cast_precision_loss)]
    fn number(self) -> Option<f64> {
        match self {
            Value::Int(n) => Some(n as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }
}

/// `vars`: each trigger name's value, `None` for a trigger that fell back to nil.
pub fn eval(expr: &Expr, vars: &BTreeMap<String, Option<f64>>) -> Result<Value, String> {
    Ok(match expr {
        Expr::Number(n) => Value::Float(*n),
        Expr::Integer(n) => Value::Int(*n),
        Expr::Bool(b) => Value::Bool(*b),
        Expr::Nil => Value::Nil,
        // A name with no value in the environment map is nil at run time.
        Expr::Var(name) => match vars.get(name) {
            Some(Some(v)) => Value::Float(*v),
            _ => Value::Nil,
        },
        Expr::Unary(op, e) => {
            let v = eval(e, vars)?;
            match (op, v) {
                (UnaryOp::Neg, Value::Int(n)) => Value::Int(n.wrapping_neg()),
                (UnaryOp::Neg, Value::Float(f)) => Value::Float(-f),
                (UnaryOp::Plus, Value::Int(_) | Value::Float(_)) => v,
                (UnaryOp::Not, Value::Bool(b)) => Value::Bool(!b),
                _ => return Err(format!("invalid operation: {op:?} {}", v.type_name())),
            }
        }
        Expr::Ternary(c, a, b) => match eval(c, vars)? {
            Value::Bool(true) => eval(a, vars)?,
            Value::Bool(false) => eval(b, vars)?,
            other => {
                return Err(format!(
                    "non-bool expression (type {}) used as condition",
                    other.type_name()
                ));
            }
        },
        Expr::Binary(op, a, b) => binary(*op, a, b, vars)?,
        Expr::Call(name, args) => {
            let values = args
                .iter()
                .map(|a| eval(a, vars))
                .collect::<Result<Vec<_>, _>>()?;
            call(name, &values)?
        }
    })
}

fn binary(
    op: BinaryOp,
    a: &Expr,
    b: &Expr,
    vars: &BTreeMap<String, Option<f64>>,
) -> Result<Value, String> {
    match op {
        BinaryOp::Coalesce => {
            let left = eval(a, vars)?;
            return if left == Value::Nil {
                eval(b, vars)
            } else {
                Ok(left)
            };
        }
        BinaryOp::And | BinaryOp::Or => {
            let Value::Bool(left) = eval(a, vars)? else {
                return Err(format!("invalid operation: non-bool operand of {op:?}"));
            };
            if (op == BinaryOp::And && !left) || (op == BinaryOp::Or && left) {
                return Ok(Value::Bool(left));
            }
            return match eval(b, vars)? {
                Value::Bool(right) => Ok(Value::Bool(right)),
                other => Err(format!(
                    "invalid operation: {op:?} with {}",
                    other.type_name()
                )),
            };
        }
        _ => {}
    }
    let (x, y) = (eval(a, vars)?, eval(b, vars)?);
    if matches!(op, BinaryOp::Eq | BinaryOp::Ne) {
        let equal = match (x.number(), y.number()) {
            (Some(p), Some(q)) => p == q,
            _ => x == y,
        };
        return Ok(Value::Bool(equal == (op == BinaryOp::Eq)));
    }
    let bad = || {
        format!(
            "invalid operation: {} {op:?} {}",
            x.type_name(),
            y.type_name()
        )
    };
    if let (Value::Int(p), Value::Int(q)) = (x, y) {
        return Ok(match op {
            BinaryOp::Add => Value::Int(p.wrapping_add(q)),
            BinaryOp::Sub => Value::Int(p.wrapping_sub(q)),
            BinaryOp::Mul => Value::Int(p.wrapping_mul(q)),
            BinaryOp::Mod => {
                if q == 0 {
                    return Err("integer divide by zero".to_string());
                }
                Value::Int(p.wrapping_rem(q))
            }
            _ => float_op(op, x, y).ok_or_else(bad)?,
        });
    }
    float_op(op, x, y).ok_or_else(bad)
}

fn float_op(op: BinaryOp, x: Value, y: Value) -> Option<Value> {
    let (p, q) = (x.number()?, y.number()?);
    Some(match op {
        BinaryOp::Add => Value::Float(p + q),
        BinaryOp::Sub => Value::Float(p - q),
        BinaryOp::Mul => Value::Float(p * q),
        BinaryOp::Div => Value::Float(p / q),
        BinaryOp::Pow => Value::Float(p.powf(q)),
        // expr-lang's `%` takes integers only.
        BinaryOp::Mod => return None,
        BinaryOp::Lt => Value::Bool(p < q),
        BinaryOp::Le => Value::Bool(p <= q),
        BinaryOp::Gt => Value::Bool(p > q),
        BinaryOp::Ge => Value::Bool(p >= q),
        _ => return None,
    })
}

/// Go's `math.Round`: half away from zero.
fn go_round(f: f64) -> f64 {
    f.round()
}

#[allow(clippy::cast_possible_truncation)]
fn call(name: &str, args: &[Value]) -> Result<Value, String> {
    let bad = |v: &Value| format!("invalid argument for {name} (type {})", v.type_name());
    match (name, args) {
        ("float", [v]) => v.number().map(Value::Float).ok_or_else(|| bad(v)),
        ("int", [Value::Int(n)]) => Ok(Value::Int(*n)),
        ("int", [Value::Float(f)]) => Ok(Value::Int(*f as i64)),
        ("abs", [Value::Int(n)]) => Ok(Value::Int(n.wrapping_abs())),
        ("abs", [Value::Float(f)]) => Ok(Value::Float(f.abs())),
        ("ceil", [v]) => v
            .number()
            .map(|f| Value::Float(f.ceil()))
            .ok_or_else(|| bad(v)),
        ("floor", [v]) => v
            .number()
            .map(|f| Value::Float(f.floor()))
            .ok_or_else(|| bad(v)),
        ("round", [v]) => v
            .number()
            .map(|f| Value::Float(go_round(f)))
            .ok_or_else(|| bad(v)),
        ("max" | "min", values) => {
            let mut best: Option<(f64, Value)> = None;
            for v in values {
                let n = v.number().ok_or_else(|| bad(v))?;
                let better = match best {
                    None => true,
                    Some((b, _)) => (name == "max" && n > b) || (name == "min" && n < b),
                };
                if better {
                    best = Some((n, *v));
                }
            }
            best.map(|(_, v)| v)
                .ok_or_else(|| format!("not enough arguments to call {name}"))
        }
        (_, [v, ..]) => Err(bad(v)),
        _ => Err(format!("not enough arguments to call {name}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::parse;

    fn run(text: &str, vars: &[(&str, Option<f64>)]) -> Result<Value, String> {
        let names: Vec<&str> = vars.iter().map(|(n, _)| *n).collect();
        let e = parse(text, &names)?;
        let env = vars.iter().map(|(n, v)| ((*n).to_string(), *v)).collect();
        eval(&e, &env)
    }

    #[test]
    fn arithmetic_over_trigger_values() {
        assert_eq!(
            run("(a + b) / 2", &[("a", Some(3.0)), ("b", Some(4.0))]),
            Ok(Value::Float(3.5))
        );
        assert_eq!(run("7 / 2", &[]), Ok(Value::Float(3.5)));
        assert_eq!(run("7 % 2 + 1", &[]), Ok(Value::Int(2)));
        assert_eq!(run("2 ** 3", &[]), Ok(Value::Float(8.0)));
    }

    #[test]
    fn ternary_and_comparison() {
        let vars = [("a", Some(3.0)), ("b", Some(1.0))];
        assert_eq!(run("a > 2 ? a + b : 1", &vars), Ok(Value::Float(4.0)));
        assert_eq!(run("a < 2 ? a + b : 1", &vars), Ok(Value::Int(1)));
        assert!(run("a ? 1 : 2", &vars).is_err());
    }

    #[test]
    fn coalesce_replaces_nil_and_nil_arithmetic_fails() {
        let vars = [("a", None), ("b", Some(5.0))];
        assert_eq!(run("a ?? b", &vars), Ok(Value::Float(5.0)));
        assert_eq!(run("(a ?? 0) + b", &vars), Ok(Value::Float(5.0)));
        assert!(run("a + b", &vars).is_err());
        assert_eq!(run("a", &vars), Ok(Value::Nil));
    }

    #[test]
    fn functions() {
        let vars = [("a", Some(2.4)), ("b", Some(7.0))];
        assert_eq!(run("max(a, b, 3)", &vars), Ok(Value::Float(7.0)));
        assert_eq!(run("min(a, 3)", &vars), Ok(Value::Float(2.4)));
        assert_eq!(run("ceil(a)", &vars), Ok(Value::Float(3.0)));
        assert_eq!(run("round(2.5)", &vars), Ok(Value::Float(3.0)));
        assert_eq!(run("int(b / 2)", &vars), Ok(Value::Int(3)));
        assert_eq!(run("abs(-3)", &vars), Ok(Value::Int(3)));
    }
}
