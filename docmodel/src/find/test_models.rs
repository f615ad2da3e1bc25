//! The models the translations' tests query: an order with a compound index, an invoice under the `meta`
//! layout, and four models adopting documents written before them (another spelling of the type, none,
//! envelope fields under another program's names, the root attribute).

#[derive(serde::Serialize, serde::Deserialize, crate::DocModel)]
#[docmodel(crate = crate, type = "order", schema = "2.0", key = "order::{order_id}")]
#[docmodel(index = "customer_no", index = "customer_no, placed_at")]
#[serde(rename_all = "camelCase")]
pub(super) struct Order {
    pub(super) order_id: u64,
    pub(super) customer_no: u64,
    pub(super) placed_at: String,
    pub(super) tags: Vec<String>,
    pub(super) note: Option<String>,
}

#[derive(serde::Serialize, serde::Deserialize, crate::DocModel)]
#[docmodel(crate = crate, type = "invoice", schema = "1.0", key = "inv:{year}:{number}")]
#[docmodel(envelope(layout = "meta"), index = "total")]
pub(super) struct Invoice {
    pub(super) year: u16,
    // The find tests check that a query escapes a reserved word.
    #[docmodel(allow(reserved_word))]
    pub(super) number: u32,
    pub(super) total: f64,
    pub(super) lines: Vec<Option<u32>>,
}

#[derive(serde::Serialize, serde::Deserialize, crate::DocModel)]
#[docmodel(crate = crate, type = "profile", aliases("userProfile"), schema = "2.0")]
#[docmodel(key = "profile::{username}", unversioned = "1.0", migrate_from("1.0" = crate::find::test_models::same))]
#[docmodel(envelope(layout = "plain"), index = "status")]
pub(super) struct Profile {
    pub(super) username: String,
    pub(super) status: String,
}

#[derive(serde::Serialize, serde::Deserialize, crate::DocModel)]
#[docmodel(crate = crate, type = "member", schema = "1.0", key = "member::{username}")]
#[docmodel(untyped = "accept", envelope(layout = "plain"))]
pub(super) struct Member {
    pub(super) username: String,
}

#[derive(serde::Serialize, serde::Deserialize, crate::DocModel)]
#[docmodel(crate = crate, type = "note", schema = "1.0", key = "note::{id}")]
#[docmodel(envelope(layout = "plain", legacy_names(type = "docType", created = "ctime")))]
#[docmodel(index = "body")]
pub(super) struct Note {
    pub(super) id: u64,
    pub(super) body: String,
}

#[derive(serde::Serialize, serde::Deserialize, crate::DocModel)]
#[docmodel(crate = crate, type = "track", schema = "1.0", key = "{album}:{id}")]
#[docmodel(envelope(layout = "root"), index = "title")]
pub(super) struct Track {
    pub(super) album: String,
    pub(super) id: String,
    pub(super) title: String,
}

pub(super) fn same(_: &mut crate::JsonObject) -> Result<(), crate::MigrationError> {
    Ok(())
}

/// An item of a parent (`Child`): the derive declares an index over `folder` and then `place`, and one over
/// `place` alone.
#[derive(serde::Serialize, serde::Deserialize, crate::DocModel)]
#[docmodel(crate = crate, type = "bookmark", schema = "1.0", key = "bookmark::{id}")]
pub(super) struct Bookmark {
    pub(super) id: u64,
    #[docmodel(parent)]
    pub(super) folder: crate::Ref<Order>,
    #[docmodel(order)]
    pub(super) place: crate::OrderKey,
}
