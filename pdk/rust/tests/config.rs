//! Configuration helpers through the fake host. A separate test binary
//! because it defines its own `mcphost_policy_v1` export.

use mcphost_pdk::testing::Host;
use mcphost_pdk::*;

fn probe(_: PolicyRequest) -> Result<PolicyDecision, Error> {
    let n: u32 = config::parse_or("n", 7)?;
    let f = config::flag("f", false)?;
    let l = config::list("l")
        .map(|l| l.join("|"))
        .unwrap_or_else(|| "-".into());
    Ok(PolicyDecision::allow().with_reason(format!("{n} {f} {l}")))
}

mcphost_pdk::policy!(probe);

fn run(h: Host) -> Result<PolicyDecision, String> {
    h.run(mcphost_policy_v1, &PolicyRequest::default())
}

#[test]
fn defaults_values_and_errors() {
    assert_eq!(run(Host::new()).unwrap().reason, "7 false -");
    assert_eq!(
        run(Host::new()
            .config("n", " 12 ")
            .config("f", "YES")
            .config("l", " a, ,b "))
        .unwrap()
        .reason,
        "12 true a|b"
    );
    assert!(run(Host::new().config("n", "x"))
        .unwrap_err()
        .starts_with("config n=\"x\":"));
    assert!(run(Host::new().config("f", "maybe"))
        .unwrap_err()
        .contains("want true or false"));
}
