//! Timestamps: the envelope's, the formats they are stored in, and serde adapters for body fields.
//!
//! A body field of type [`Timestamp`] is written as epoch milliseconds and read from them or from an
//! ISO-8601 string with a zone. The seeds' other forms are adapters for `#[serde(with = "...")]`:
//!
//! ```
//! use docmodel::Timestamp;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize)]
//! struct Order {
//!     placed: Timestamp,                                   // 1544759124478
//!     #[serde(with = "docmodel::timestamp::epoch_s")]
//!     paid: Timestamp,                                     // 1544759124
//!     #[serde(with = "docmodel::timestamp::epoch_day::option")]
//!     shipped: Option<Timestamp>,                          // 17879 or null
//!     #[serde(with = "docmodel::timestamp::components")]
//!     due: Timestamp,                                      // [2018, 12, 14, 3, 45, 24, 478]
//! }
//!
//! let t = Timestamp::from_millis(1_544_759_124_478);
//! let order = Order { placed: t, paid: t, shipped: None, due: t };
//! assert_eq!(
//!     serde_json::to_string(&order).unwrap(),
//!     r#"{"placed":1544759124478,"paid":1544759124,"shipped":null,"due":[2018,12,14,3,45,24,478]}"#
//! );
//! let read: Order = serde_json::from_str(
//!     r#"{"placed":"2018-12-14T04:45:24.478+01:00","paid":1544759124,"shipped":17879,"due":[2018,12,14]}"#,
//! ).unwrap();
//! assert_eq!(read.placed, t);
//! assert_eq!(read.paid.as_millis(), 1_544_759_124_000); // seconds keep seconds
//! assert_eq!(read.shipped, Some(Timestamp::from_millis(1_544_745_600_000)));
//! ```

mod adapters;
mod convert;
pub(crate) mod instant;

pub use adapters::{components, epoch_day, epoch_h, epoch_min, epoch_ms, epoch_s, iso8601};
pub use instant::OutOfRange;
pub(crate) use instant::{MAX_COMPONENTS, TimeProblem, Timestamp, TimestampFormat, parse_stored};
