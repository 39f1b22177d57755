//! A value shared between copies of a scenario until one of them changes it: a clone is a count
//! increment, and the first write through `DerefMut` copies the value for the writer alone
//! (`Arc::make_mut`). The pods and the resource metrics of a scenario are held so, because the
//! engine copies a scenario for every what-if sync (the advice's checks, the searches of
//! `calc::infer`) and almost none of those copies change the pods.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

#[derive(Clone, Default, PartialEq)]
pub struct Shared<T>(Arc<T>);

impl<T> Shared<T> {
    pub fn new(value: T) -> Shared<T> {
        Shared(Arc::new(value))
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Clone> DerefMut for Shared<T> {
    fn deref_mut(&mut self) -> &mut T {
        Arc::make_mut(&mut self.0)
    }
}

impl<T> From<T> for Shared<T> {
    fn from(value: T) -> Shared<T> {
        Shared::new(value)
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<'a, T> IntoIterator for &'a Shared<Vec<T>> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a, T: Clone> IntoIterator for &'a mut Shared<Vec<T>> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        Arc::make_mut(&mut self.0).iter_mut()
    }
}

impl<T> FromIterator<T> for Shared<Vec<T>> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Shared::new(iter.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_shares_the_value_until_one_side_writes() {
        let a: Shared<Vec<i32>> = vec![1, 2].into();
        let mut b = a.clone();
        assert!(std::ptr::eq(&*a, &*b), "a clone shares");
        b.push(3);
        assert_eq!((&*a, &*b), (&vec![1, 2], &vec![1, 2, 3]));
        assert!(!std::ptr::eq(&*a, &*b), "the writer has its own copy");
    }
}
