//! HPA status conditions as the controller sets them: `setCondition` / `removeCondition` of
//! `horizontal.go` (one entry per type, reason and message always overwritten).

use crate::report::Condition;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Conditions(Vec<Condition>);

impl Conditions {
    // Port of setCondition / setConditionInList (horizontal.go).
    pub fn set(
        &mut self,
        condition_type: &str,
        status: bool,
        reason: &str,
        message: impl Into<String>,
    ) {
        let condition = Condition {
            condition_type: condition_type.to_string(),
            status: if status { "True" } else { "False" }.to_string(),
            reason: reason.to_string(),
            message: message.into(),
        };
        match self
            .0
            .iter_mut()
            .find(|c| c.condition_type == condition_type)
        {
            Some(existing) => *existing = condition,
            None => self.0.push(condition),
        }
    }

    // Port of removeCondition (horizontal.go).
    pub fn remove(&mut self, condition_type: &str) {
        self.0.retain(|c| c.condition_type != condition_type);
    }

    pub fn get(&self, condition_type: &str) -> Option<&Condition> {
        self.0.iter().find(|c| c.condition_type == condition_type)
    }

    pub fn into_vec(self) -> Vec<Condition> {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_overwrites_the_condition_of_the_same_type_in_place() {
        let mut c = Conditions::default();
        c.set("AbleToScale", true, "SucceededGetScale", "a");
        c.set("ScalingActive", true, "ValidMetricFound", "b");
        c.set("AbleToScale", true, "ReadyForNewScale", "c");
        let v = c.clone().into_vec();
        assert_eq!(v.len(), 2);
        assert_eq!(
            (v[0].reason.as_str(), v[0].message.as_str()),
            ("ReadyForNewScale", "c")
        );
        c.remove("AbleToScale");
        assert!(c.get("AbleToScale").is_none());
    }
}
