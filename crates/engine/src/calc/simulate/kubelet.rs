//! The kubelet's part (§8.2 step 1): pods and nodes finish what they started. A booting node
//! turns Ready, a starting pod's Ready condition turns True once its startup time has passed, and
//! a terminating pod is gone after the termination time and gives its node room back. The
//! controllers read nothing else of the kubelet.

use super::engine::{Engine, NodeState, PodState};

impl Engine<'_> {
    pub(super) fn nodes_progress(&mut self, t: i64) {
        let mut ready = Vec::new();
        for n in &mut self.nodes {
            if let NodeState::Booting { ready_at } = n.state
                && ready_at <= t
            {
                n.state = NodeState::Ready;
                ready.push(n.slot.name.clone());
            }
        }
        if !ready.is_empty() {
            self.event(t, "kubelet", format!("{} Ready", ready.join(", ")));
        }
    }

    pub(super) fn pods_progress(&mut self, t: i64) {
        let mut became_ready = 0;
        let mut gone = false;
        for (p, pod) in self.pods.iter_mut().zip(&mut self.scenario.pods) {
            match p.state {
                PodState::Starting { ready_at } if ready_at <= t => {
                    p.make_ready(pod, ready_at);
                    became_ready += 1;
                }
                PodState::Terminating { gone_at } if gone_at <= t => gone = true,
                _ => {}
            }
        }
        if gone {
            self.remove_pods(
                |p| matches!(p.state, PodState::Terminating { gone_at } if gone_at <= t),
            );
        }
        if became_ready > 0 {
            self.event(t, "kubelet", format!("{became_ready} pod(s) Ready"));
        }
    }
}
