//! HPA status conditions as the controller sets them: `setCondition` / `removeCondition` of
//! `horizontal.go`. The list starts from the manifest's `status.conditions`; one entry per type,
//! reason and message always overwritten, an existing entry kept in its place.

use crate::report::Condition;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Conditions {
    list: Vec<Condition>,
    /// The evaluation time (RFC 3339), written as `lastTransitionTime` when a status changes.
    now: Option<String>,
}

impl Conditions {
    /// The conditions the HPA had before this sync, as its `status.conditions` lists them.
    pub fn from_status(list: &[Condition], now: String) -> Conditions {
        Conditions {
            list: list.to_vec(),
            now: Some(now),
        }
    }

    // Port of setCondition / setConditionInList (horizontal.go).
    pub fn set(
        &mut self,
        condition_type: &str,
        status: bool,
        reason: &str,
        message: impl Into<String>,
    ) {
        let status = if status { "True" } else { "False" };
        let index = match self
            .list
            .iter()
            .position(|c| c.condition_type == condition_type)
        {
            Some(i) => i,
            None => {
                self.list.push(Condition {
                    condition_type: condition_type.to_string(),
                    status: String::new(),
                    reason: String::new(),
                    message: String::new(),
                    last_transition_time: None,
                });
                self.list.len() - 1
            }
        };
        if let Some(existing) = self.list.get_mut(index) {
            if existing.status != status {
                existing.last_transition_time.clone_from(&self.now);
            }
            existing.status = status.to_string();
            existing.reason = reason.to_string();
            existing.message = message.into();
        }
    }

    // Port of removeCondition (horizontal.go).
    pub fn remove(&mut self, condition_type: &str) {
        self.list.retain(|c| c.condition_type != condition_type);
    }

    pub fn get(&self, condition_type: &str) -> Option<&Condition> {
        self.list
            .iter()
            .find(|c| c.condition_type == condition_type)
    }

    pub fn into_vec(self) -> Vec<Condition> {
        self.list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn condition(t: &str, status: &str, time: &str) -> Condition {
        Condition {
            condition_type: t.into(),
            status: status.into(),
            reason: "Old".into(),
            message: "old".into(),
            last_transition_time: Some(time.into()),
        }
    }

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

    #[test]
    fn set_condition_in_list_keeps_the_status_order_and_moves_the_transition_time_only_on_change() {
        let before = [
            condition("ScalingLimited", "True", "2026-11-29T10:00:00Z"),
            condition("ScalingActive", "True", "2026-11-29T11:00:00Z"),
        ];
        let mut c = Conditions::from_status(&before, "2026-11-29T15:00:00Z".into());
        c.set("AbleToScale", true, "SucceededGetScale", "x");
        c.set("ScalingActive", true, "ValidMetricFound", "y");
        c.set("ScalingLimited", false, "DesiredWithinRange", "z");
        let v = c.into_vec();
        let order: Vec<&str> = v.iter().map(|c| c.condition_type.as_str()).collect();
        assert_eq!(order, ["ScalingLimited", "ScalingActive", "AbleToScale"]);
        let times: Vec<Option<&str>> = v
            .iter()
            .map(|c| c.last_transition_time.as_deref())
            .collect();
        assert_eq!(
            times,
            [
                Some("2026-11-29T15:00:00Z"),
                Some("2026-11-29T11:00:00Z"),
                Some("2026-11-29T15:00:00Z")
            ]
        );
        assert_eq!(v[1].reason, "ValidMetricFound");
    }
}
