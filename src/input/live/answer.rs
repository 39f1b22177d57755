//! What the API server's answers say, read without the connection: a list's page, a `Status`,
//! a discovery document, a scale, the names of a list. The live client hands each answer's text
//! here; the fuzz target `live_answers` feeds these any text.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::LiveError;
use crate::input::kubectl::scale::{self, Scale};
use crate::input::kubectl::{Format, Scope};
use crate::input::selector::Selector;
use crate::scenario::ObjectReference;

/// One page of a list: its items as served, and the `continue` token of the next page.
#[derive(Deserialize)]
pub struct Page<'a> {
    #[serde(default)]
    metadata: Option<PageMeta>,
    #[serde(borrow, default)]
    items: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PageMeta {
    #[serde(default, rename = "continue")]
    next: Option<String>,
    #[serde(default)]
    resource_version: Option<String>,
}

impl<'a> Page<'a> {
    pub fn parse(text: &'a str) -> Result<Page<'a>, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The token of the next page; none (or empty) on the last.
    pub fn next(&self) -> Option<&str> {
        (self.metadata.as_ref())
            .and_then(|m| m.next.as_deref())
            .filter(|t| !t.is_empty())
    }

    /// The list's `resourceVersion`, which a watch of it starts from.
    pub fn resource_version(&self) -> Option<&str> {
        (self.metadata.as_ref()).and_then(|m| m.resource_version.as_deref())
    }

    pub fn items(&self) -> &[&'a RawValue] {
        self.items.as_deref().unwrap_or_default()
    }
}

/// A metrics API's answer as its items: a list's, or the one object v1beta1 answers for an
/// Object metric.
pub fn metric_items(text: &str) -> Result<Vec<Box<RawValue>>, serde_json::Error> {
    if text.contains("\"items\"") {
        let page = Page::parse(text)?;
        Ok(page.items().iter().map(|i| (*i).to_owned()).collect())
    } else {
        Ok(vec![serde_json::from_str(text)?])
    }
}

/// The `message` of a `Status` body (and true), else its first line (and false).
pub fn status_message(body: &str) -> (String, bool) {
    #[derive(Deserialize)]
    struct Status {
        #[serde(default)]
        kind: Option<String>,
        #[serde(default)]
        message: Option<String>,
    }
    match serde_json::from_str::<Status>(body) {
        Ok(Status {
            kind: Some(kind),
            message: Some(message),
        }) if kind == "Status" => (message, true),
        _ => (
            body.lines().next().unwrap_or_default().trim().to_string(),
            false,
        ),
    }
}

/// The names of a list's items, when it is a list.
pub fn names(list: &str) -> Option<Vec<String>> {
    #[derive(Deserialize)]
    struct List {
        #[serde(default)]
        items: Option<Vec<Item>>,
    }
    #[derive(Deserialize)]
    struct Item {
        metadata: Meta,
    }
    #[derive(Deserialize)]
    struct Meta {
        name: String,
    }
    let list: List = serde_json::from_str(list).ok()?;
    Some(
        list.items
            .unwrap_or_default()
            .into_iter()
            .map(|i| i.metadata.name)
            .collect(),
    )
}

/// The resource of `kind` in a discovery document (an `APIResourceList`): (plural name, has
/// `/scale`).
pub fn resource_of(
    discovery: &str,
    kind: &str,
) -> Result<Option<(String, bool)>, serde_json::Error> {
    #[derive(Deserialize)]
    struct List {
        #[serde(default)]
        resources: Vec<Res>,
    }
    #[derive(Deserialize)]
    struct Res {
        name: String,
        #[serde(default)]
        kind: String,
    }
    let list: List = serde_json::from_str(discovery)?;
    let Some(found) = (list.resources.iter()).find(|r| r.kind == kind && !r.name.contains('/'))
    else {
        return Ok(None);
    };
    let scale = format!("{}/scale", found.name);
    let has_scale = list.resources.iter().any(|r| r.name == scale);
    Ok(Some((found.name.clone(), has_scale)))
}

/// The scale subresource, its selector, and the pods reader's scope.
pub fn scope_of(
    scale: &str,
    target: &ObjectReference,
    namespace: &str,
) -> Result<(Scale, String, Scope), LiveError> {
    let scale_parsed = scale::parse("scale", scale, Format::Json).map_err(|e| {
        LiveError(format!(
            "the scale of {}/{} is not a Scale: {e}",
            target.kind, target.name
        ))
    })?;
    let Some(selector) = scale_parsed.selector.clone() else {
        // Port of validateAndParseSelector (horizontal.go): an empty selector stops the sync.
        return Err(LiveError(format!(
            "the scale of {}/{} has no status.selector: the controller stops with InvalidSelector \
             (\"selector is required\"); the target's controller must set the scale's selector",
            target.kind, target.name
        )));
    };
    let parsed = Selector::parse(&selector).map_err(|e| {
        LiveError(format!(
            "the scale of {}/{} has the selector {}, which does not parse: {e}",
            target.kind,
            target.name,
            crate::error::quoted(&selector)
        ))
    })?;
    let scope = Scope {
        namespace: namespace.to_string(),
        selector: Some(parsed),
        selector_is_targets: true,
    };
    Ok((scale_parsed, selector, scope))
}

/// `/version`'s `gitVersion` (`v1.33.2-eks-1234`); `None` for anything else.
pub fn git_version(text: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Info {
        git_version: String,
    }
    let info: Info = serde_json::from_str(text).ok()?;
    Some(crate::error::cut(&info.git_version, 80).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_body_gives_its_message_and_other_bodies_their_first_line() {
        let status =
            r#"{"kind":"Status","status":"Failure","message":"pods is forbidden","code":403}"#;
        assert_eq!(
            status_message(status),
            ("pods is forbidden".to_string(), true)
        );
        assert_eq!(
            status_message("404 page not found\n"),
            ("404 page not found".to_string(), false)
        );
    }

    #[test]
    fn a_page_gives_its_items_and_the_next_token_and_the_last_page_none() {
        let page = Page::parse(r#"{"metadata":{"continue":"t2"},"items":[{"a":1},{"b":2}]}"#);
        let page = page.unwrap();
        assert_eq!(page.next(), Some("t2"));
        assert_eq!(page.items().len(), 2);
        let last = Page::parse(r#"{"metadata":{"continue":""},"items":[]}"#).unwrap();
        assert_eq!(last.next(), None);
        assert!(Page::parse("[1]").is_err());
    }

    #[test]
    fn discovery_names_the_plural_and_whether_it_scales() {
        let doc = r#"{"resources":[{"name":"deployments","kind":"Deployment"},
            {"name":"deployments/scale","kind":"Scale"},{"name":"daemonsets","kind":"DaemonSet"}]}"#;
        assert_eq!(
            resource_of(doc, "Deployment").unwrap(),
            Some(("deployments".to_string(), true))
        );
        assert_eq!(
            resource_of(doc, "DaemonSet").unwrap(),
            Some(("daemonsets".to_string(), false))
        );
        assert_eq!(resource_of(doc, "Job").unwrap(), None);
    }

    #[test]
    fn an_object_metric_of_v1beta1_is_one_item() {
        assert_eq!(metric_items(r#"{"value":"1"}"#).unwrap().len(), 1);
        assert_eq!(
            metric_items(r#"{"items":[{"value":"1"},{"value":"2"}]}"#)
                .unwrap()
                .len(),
            2
        );
    }
}
