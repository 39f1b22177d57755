//! KEDA's formula language (`advanced.scalingModifiers.formula`): the part of expr-lang
//! (github.com/expr-lang/expr) that KEDA's formulas use. `parse` reads a formula into an
//! [`Expr`], refusing what hpacalc does not evaluate exactly as KEDA does; `eval` runs it as
//! expr-lang's VM does.

mod eval;
mod parse;

pub use eval::{Value, eval};
pub use parse::{FUNCTIONS, MAX_FORMULA_CHARS, parse};

/// An expr-lang expression, as far as KEDA's formulas use the language.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Number(f64),
    Integer(i64),
    Bool(bool),
    Nil,
    /// A trigger's name.
    Var(String),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `cond ? a : b`.
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `name(args...)`, one of the built-ins the parser accepts.
    Call(String, Vec<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Plus,
    Not,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    /// `??`: the right side when the left is nil.
    Coalesce,
}
