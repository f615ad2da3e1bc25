//! Models whose rustdoc pages `tests/suite/rustdoc.rs` reads: `Order` holds a field of every kind the generated
//! page tells apart, `Note` takes its envelope from a `Conventions` type.
//!
//! The test documents this file as a crate of its own (`cargo doc`) and compiles it as a module of itself,
//! to store the examples below and compare them with the JSON the pages show.

use std::collections::BTreeMap;

use docmodel::uuid::Uuid;
use docmodel::{
    Conventions, DocModel, Embedded, EnvelopeSpec, JsonValue, Layout, Presence, Ref, Timestamp,
};
use serde::{Deserialize, Serialize};

/// A track of the catalogue.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "track", schema = "1.0", key = "track::{id}")]
#[docmodel(lookup("isrc::{isrc}", ref_id))]
pub struct Track {
    id: u64,
    /// The recording's ISRC.
    isrc: String,
}

/// How far an order has got.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Placed, not paid.
    Open,
    /// Paid.
    Paid,
}

/// Where an order goes.
#[derive(Debug, Clone, Serialize, Deserialize, Embedded)]
#[serde(rename_all = "camelCase")]
pub struct Address {
    city: String,
    /// The postal code, where the country has them.
    post_code: Option<String>,
    /// For the courier; not stored.
    #[serde(skip)]
    courier_note: String,
}

/// An order of tracks.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase", tag = "kind")]
#[docmodel(
    type = "order",
    schema = "2.0",
    key = "order:{region}:{order_no}",
    lookup = "orderref:{reference}",
    index = "status, placed",
    revisions = 5
)]
pub struct Order {
    /// The sales region, part of the key.
    #[docmodel(get)]
    region: String,
    /// The order's number within its region.
    #[docmodel(get)]
    order_no: u64,
    /// The customer's own reference for the order.
    ///
    /// Unique: the lookup `orderref:{reference}` finds the order by it.
    reference: String,
    /// How far the order has got.
    status: Status,
    /// The track bought.
    track: Ref<Track>,
    /// Tracks bought with it.
    extras: Vec<Ref<Track>>,
    /// The track it was bought for, by its bare id.
    #[serde(with = "docmodel::ref_id")]
    suggested_by: Ref<Track>,
    /// The payment's id.
    payment: Uuid,
    /// When the order was placed.
    placed: Timestamp,
    /// When it was paid, in whole seconds.
    #[serde(with = "docmodel::timestamp::epoch_s")]
    paid: Timestamp,
    /// When it was shipped, if it was.
    shipped: Option<Timestamp>,
    /// A note for the packer.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    /// Whether to wrap it as a gift.
    gift: bool,
    /// The gift message: none asked for, asked for and left blank, refused, or a text.
    message: Presence<String>,
    /// The coupons applied.
    #[serde(default)]
    #[docmodel(skip_empty)]
    coupons: Vec<String>,
    /// The total in cents.
    total: i64,
    /// The parcel's weight in kilograms.
    weight: f64,
    /// How many copies.
    #[serde(rename = "qty")]
    quantity: u32,
    /// The first letter of the customer's name.
    initial: char,
    /// Labels and their counts.
    tags: BTreeMap<String, u32>,
    /// A shelf and its label.
    shelf: (u8, String),
    /// Whatever the shop's front end sent along.
    extra: JsonValue,
    /// Where the order goes.
    #[docmodel(nested)]
    ship_to: Address,
    /// The price list the total was worked out with; not stored.
    #[serde(skip)]
    price_list: u64,
}

// The model's own methods, as a user writes them below the struct: rustdoc lists them after the derive's.
impl Order {
    /// Whether the order is paid.
    #[must_use]
    pub fn is_paid(&self) -> bool {
        matches!(self.status, Status::Paid)
    }
}

/// An order with every field set, as the test stores it.
pub fn order() -> Order {
    let t = Timestamp::from_millis(1_544_759_124_478);
    Order {
        region: "eu".to_owned(),
        order_no: 42,
        reference: "PO-7".to_owned(),
        status: Status::Paid,
        track: Ref::new(Track::key(7)),
        extras: vec![Ref::new(Track::key(8))],
        suggested_by: Ref::new(Track::key(9)),
        payment: Uuid::from_u128(0x67e5_5044_10b1_426f_9247_bb68_0e5f_e0c8),
        placed: t,
        paid: t,
        shipped: Some(t),
        note: Some("fragile".to_owned()),
        gift: true,
        message: Presence::Value("Happy birthday".to_owned()),
        coupons: vec!["SPRING".to_owned()],
        total: 1999,
        weight: 0.25,
        quantity: 2,
        initial: 'J',
        tags: BTreeMap::from([("vinyl".to_owned(), 1)]),
        shelf: (3, "B".to_owned()),
        extra: JsonValue::Bool(true),
        ship_to: Address {
            city: "Lyon".to_owned(),
            post_code: Some("69002".to_owned()),
            courier_note: String::new(),
        },
        price_list: 0,
    }
}

/// The envelope of the mobile apps: plain names, no `_` (Sync Gateway reserves those).
pub struct Mobile;

impl Conventions for Mobile {
    const ENVELOPE: EnvelopeSpec = EnvelopeSpec::DEFAULT.with_layout(Layout::Plain);
}

/// A note taken on a phone.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "note", schema = "1.0", key = "note::{id}", conventions = Mobile, skip_empty)]
pub struct Note {
    id: u64,
    /// What was written.
    #[serde(default)]
    text: String,
}

/// A note, as the test stores it.
pub fn note() -> Note {
    Note {
        id: 1,
        text: "milk".to_owned(),
    }
}

/// A session, under its user's email, which its body does not repeat.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "session", schema = "1.0", key = "session::{email}")]
#[docmodel(envelope(layout = "plain", created_by, legacy_names(type = "_type")))]
pub struct Session {
    /// The user's email.
    #[docmodel(from_key)]
    #[serde(skip)]
    email: String,
    /// Where the session was opened.
    source: String,
}

/// An album, stored under its root attribute, as the data-modeling guide's track can be.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "album", schema = "1.0", key = "album::{id}", revisions = 2)]
#[docmodel(envelope(layout = "root", timestamps = "epoch_s"))]
pub struct Album {
    id: u64,
    /// The album's title.
    title: String,
}

/// An album, as the test stores it.
pub fn album() -> Album {
    Album {
        id: 1,
        title: "Eclectic".to_owned(),
    }
}
