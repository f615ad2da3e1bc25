//! The CouchDB guide's pre-aggregation: "walking the entire database and generating documents to be stored
//! in a new database with a lower level of granularity (say, 1 document a day)". A database of one document
//! a minute per sensor is walked with `Repo::all`, in key order, holding one day in memory at a time, and a
//! summary a day is written into a second database.
//!
//! Run with `cargo run --example daily_summaries`.

use docmodel::store::MemoryStore;
use docmodel::{DocModel, Repo};
use serde::{Deserialize, Serialize};

/// A minute's readings of one sensor, in tenths of a degree.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "minute",
    schema = "1.0",
    key = "minute::{sensor}::{day}::{minute}"
)]
pub struct Minute {
    sensor: String,
    day: String,
    minute: u32,
    count: u64,
    sum: i64,
    min: i64,
    max: i64,
}

/// A day's summary of one sensor.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "day", schema = "1.0", key = "day::{sensor}::{day}")]
pub struct Day {
    sensor: String,
    day: String,
    minutes: u64,
    count: u64,
    sum: i64,
    min: i64,
    max: i64,
}

impl Day {
    fn starting(minute: &Minute) -> Day {
        Day {
            sensor: minute.sensor.clone(),
            day: minute.day.clone(),
            minutes: 0,
            count: 0,
            sum: 0,
            min: i64::MAX,
            max: i64::MIN,
        }
    }

    fn add(&mut self, minute: &Minute) {
        self.minutes += 1;
        self.count += minute.count;
        self.sum += minute.sum;
        self.min = self.min.min(minute.min);
        self.max = self.max.max(minute.max);
    }
}

fn main() -> Result<(), docmodel::Error> {
    pollster::block_on(run())
}

async fn run() -> Result<(), docmodel::Error> {
    // The fine-grained database: two sensors, two days, a document a minute.
    let fine = Repo::<Minute>::new(MemoryStore::new());
    let mut minutes = Vec::new();
    for (sensor, base) in [("hall", 190), ("roof", 40)] {
        for day in ["2026-11-01", "2026-11-02"] {
            for minute in 0..1440 {
                let swing = i64::from(minute % 120) - 60;
                minutes.push(Minute {
                    sensor: sensor.into(),
                    day: day.into(),
                    minute,
                    count: 6,
                    sum: 6 * (base + swing),
                    min: base + swing - 3,
                    max: base + swing + 3,
                });
            }
        }
    }
    for outcome in fine.insert_many(minutes).await? {
        outcome?;
    }

    // The walk: key order keeps a sensor's day together, so one summary is in memory at a time.
    let daily = Repo::<Day>::new(MemoryStore::new());
    let mut walk = fine.all();
    let mut current: Option<Day> = None;
    while let Some(minute) = walk.next().await? {
        let same_day = current
            .as_ref()
            .is_some_and(|day| day.sensor == minute.sensor && day.day == minute.day);
        if !same_day && let Some(done) = current.replace(Day::starting(&minute)) {
            daily.insert(done).await?;
        }
        current
            .get_or_insert_with(|| Day::starting(&minute))
            .add(&minute);
    }
    if let Some(done) = current {
        daily.insert(done).await?;
    }

    let mut summaries = daily.all();
    while let Some(day) = summaries.next().await? {
        let mean = day.sum as f64 / day.count as f64 / 10.0;
        println!(
            "{} {}: {} minutes, {} readings, mean {mean:.1} °C, {:.1} to {:.1} °C",
            day.sensor,
            day.day,
            day.minutes,
            day.count,
            day.min as f64 / 10.0,
            day.max as f64 / 10.0
        );
    }
    Ok(())
}
