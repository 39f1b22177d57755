//! What people paste into incident channels and issues, read as the inputs the controller saw:
//! `kubectl describe hpa` text, the `kubectl get hpa` table, and HPA events (`--events`, and the
//! Events section of describe text). Each ends in the same `Scenario` as a manifest does: the text
//! forms become an HPA with a status (answered by the status-only approximation), the events the
//! controller memory `--history` gives.

pub mod events;
