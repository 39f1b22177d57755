#![no_main]
//! Any text as a kubeconfig, and any bytes as an exec plugin's output. A kubeconfig holds
//! secrets: an error names the file, the place and the field, so it stays short whatever the
//! text, and never repeats a value of the file (the canary token below).
use hpacalc::input::live::kubeconfig::{context_names, parse, take_credential};
use kube::config::AuthInfo;
use libfuzzer_sys::fuzz_target;

const CANARY: &str = "s3cr3t-canary";

fuzz_target!(|data: &[u8]| {
    let mut auth = AuthInfo::default();
    let _ = take_credential(&mut auth, "plugin", data);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse("fuzz.yaml", text) {
        Ok(config) => {
            let _ = context_names(&config);
        }
        Err(e) => {
            let message = e.to_string();
            assert!(message.len() < 1_000, "{} bytes", message.len());
            assert!(!message.contains(CANARY), "{message}");
        }
    }
});
