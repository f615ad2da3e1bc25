use super::{OrderKey, OrderKeyError};

/// splitmix64: a seeded stream of numbers, so that a failing run is the same run again.
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        usize::try_from((z ^ (z >> 31)) % n as u64).unwrap()
    }
}

fn key(text: &str) -> OrderKey {
    OrderKey::parse(text).unwrap()
}

/// The key for a new item at `at` (0: first; `keys.len()`: last) of the sorted `keys`, checked to fall there.
fn insert(keys: &mut Vec<OrderKey>, at: usize, replica: Option<&str>) -> usize {
    let new = match (
        at.checked_sub(1).map(|low| &keys[low]),
        keys.get(at),
        replica,
    ) {
        (None, None, _) => OrderKey::first(),
        (Some(low), None, None) => low.after(),
        (None, Some(high), None) => high.before(),
        (Some(low), Some(high), None) => OrderKey::between(low, high).unwrap(),
        (Some(low), None, Some(tag)) => low.after_on(tag).unwrap(),
        (None, Some(high), Some(tag)) => high.before_on(tag).unwrap(),
        (Some(low), Some(high), Some(tag)) => OrderKey::between_on(low, high, tag).unwrap(),
    };
    if let Some(low) = at.checked_sub(1).map(|low| &keys[low]) {
        assert!(low < &new, "{low} < {new}");
    }
    if let Some(high) = keys.get(at) {
        assert!(&new < high, "{new} < {high}");
    }
    assert_eq!(
        OrderKey::parse(new.as_str()).as_ref(),
        Ok(&new),
        "a key parses"
    );
    let length = new.as_str().len();
    keys.insert(at, new);
    length
}

#[test]
fn keys_count_up_and_down_from_the_first() {
    let first = OrderKey::first();
    assert_eq!(first.as_str(), "n0");
    let mut up = vec![first.clone()];
    for _ in 0..37 {
        let next = up.last().unwrap().after();
        up.push(next);
    }
    let texts: Vec<&str> = up.iter().map(OrderKey::as_str).collect();
    assert_eq!(&texts[..3], ["n0", "n1", "n2"]);
    assert_eq!(&texts[35..], ["nz", "o00", "o01"]);
    let mut down = vec![first];
    for _ in 0..37 {
        let next = down.last().unwrap().before();
        down.push(next);
    }
    let texts: Vec<&str> = down.iter().map(OrderKey::as_str).collect();
    assert_eq!(&texts[..3], ["n0", "mz", "my"]);
    assert_eq!(&texts[35..], ["m1", "m0", "lzz"]);
    assert_eq!(
        OrderKey::between(&key("n0"), &key("n1")).unwrap().as_str(),
        "n0i"
    );
    assert_eq!(
        OrderKey::between(&key("n0"), &key("n0i")).unwrap().as_str(),
        "n09"
    );
    assert_eq!(
        OrderKey::between(&key("n0"), &key("n2")).unwrap().as_str(),
        "n1"
    );
}

#[test]
fn the_ends_of_the_integers_go_on_into_fractions() {
    let largest = key(&format!("z{}", "z".repeat(13)));
    let after = largest.after();
    assert!(largest < after, "{after}");
    assert_eq!(after.as_str(), format!("z{}i", "z".repeat(13)));
    let lowest = key(&format!("a{}1", "0".repeat(13)));
    let before = lowest.before();
    assert!(before < lowest, "{before}");
    assert_eq!(OrderKey::parse(before.as_str()), Ok(before.clone()));
    // Below the last integer before the smallest: a fraction of the smallest.
    let one = key(&format!("a{}1", "0".repeat(12)));
    assert_eq!(one.before().as_str(), format!("a{}i", "0".repeat(13)));
}

#[test]
fn text_that_is_not_a_key_is_refused_with_the_reason() {
    for (text, reason) in [
        ("", "it is empty"),
        ("N0", "it does not begin with a-z"),
        (
            "o0",
            "its integer part is shorter than its first letter says",
        ),
        ("n0-", "it holds a character other than 0-9 and a-z"),
        ("n0A", "it holds a character other than 0-9 and a-z"),
        ("n0i0", "its fraction ends with 0"),
    ] {
        assert_eq!(
            OrderKey::parse(text),
            Err(OrderKeyError::Invalid {
                text: text.to_owned(),
                reason
            }),
            "{text:?}"
        );
    }
    let smallest = format!("a{}", "0".repeat(13));
    assert!(OrderKey::parse(&smallest).is_err());
    assert_eq!(
        OrderKey::between(&key("n1"), &key("n1"))
            .unwrap_err()
            .to_string(),
        "no order key lies between `n1` and `n1`: the first must sort before the second"
    );
    assert!(OrderKey::between(&key("n2"), &key("n1")).is_err());
    for tag in ["", "A", "a-b", "x0", "abcdefghijklmnopq"] {
        assert_eq!(
            OrderKey::between_on(&key("n0"), &key("n1"), tag),
            Err(OrderKeyError::Tag {
                tag: tag.to_owned()
            })
        );
    }
}

#[test]
fn a_key_is_a_json_string_and_bad_text_does_not_read() {
    let keys = vec![key("n0"), key("n0i")];
    let json = serde_json::to_string(&keys).unwrap();
    assert_eq!(json, r#"["n0","n0i"]"#);
    assert_eq!(serde_json::from_str::<Vec<OrderKey>>(&json).unwrap(), keys);
    let err = serde_json::from_str::<OrderKey>(r#""n0i0""#).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("`n0i0` is not an order key: its fraction ends with 0"),
        "{err}"
    );
}

/// 100,000 items appended, or prepended: keys of `log36(n) + 2` characters.
#[test]
fn appending_or_prepending_keeps_keys_short() {
    let mut keys = Vec::new();
    let mut longest = 0;
    for _ in 0..100_000 {
        let at = keys.len();
        longest = longest.max(insert(&mut keys, at, None));
    }
    assert_eq!(longest, 5);
    let mut keys = Vec::new();
    let mut longest = 0;
    for _ in 0..100_000 {
        longest = longest.max(insert(&mut keys, 0, None));
    }
    assert_eq!(longest, 5);
    assert!(keys.windows(2).all(|pair| pair[0] < pair[1]));
}

/// 100,000 items put at random places (and a tenth of the time at either end): the order stays strict, the
/// keys short.
#[test]
fn items_put_at_random_places_keep_a_strict_order_and_short_keys() {
    let mut random = Random(7);
    let mut keys = Vec::new();
    let mut longest = 0;
    for _ in 0..100_000 {
        let at = match random.below(20) {
            0 => 0,
            1 => keys.len(),
            _ => random.below(keys.len() + 1),
        };
        longest = longest.max(insert(&mut keys, at, None));
    }
    assert!(keys.windows(2).all(|pair| pair[0] < pair[1]));
    assert!(longest <= 10, "longest key: {longest}");
}

/// Items put again and again at one place: each halves what is left there, so a key grows by one character
/// about every 5 items (log2(36) = 5.2), as the type's docs say.
#[test]
fn items_put_again_and_again_at_one_place_grow_a_character_every_five() {
    for (seed, place) in [(1, 0), (2, 1), (3, 2)] {
        let mut random = Random(seed);
        let mut keys = Vec::new();
        for _ in 0..100 {
            let at = random.below(keys.len() + 1);
            insert(&mut keys, at, None);
        }
        let base = keys.iter().map(|key| key.as_str().len()).max().unwrap();
        // After the item at `place`, before the one put there last: 1,000 times.
        let mut longest = 0;
        for _ in 0..1_000 {
            longest = longest.max(insert(&mut keys, place + 1, None));
        }
        assert!(keys.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(
            longest <= base + 1_000 / 5 + 2,
            "seed {seed}: {longest} against {base}"
        );
    }
}

/// Three replicas put items at random places of one list apart, often at the same place as another: each
/// with its own tag, every key differs from every other and the order stays strict, the same on every
/// replica (the keys decide it).
#[test]
fn replicas_that_put_items_at_one_place_apart_keep_both() {
    let mut random = Random(11);
    let mut keys: Vec<OrderKey> = Vec::new();
    let tags = ["a1", "b1", "c1"];
    let mut longest = 0;
    for _ in 0..10_000 {
        let at = random.below(keys.len() + 1);
        // Up to three replicas put an item at that place, each from the same neighbours.
        let low = at.checked_sub(1).map(|low| keys[low].clone());
        let high = keys.get(at).cloned();
        let mut made: Vec<OrderKey> = Vec::new();
        for tag in &tags[..1 + random.below(3)] {
            let new = match (&low, &high) {
                (Some(low), Some(high)) => OrderKey::between_on(low, high, tag).unwrap(),
                (Some(low), None) => low.after_on(tag).unwrap(),
                (None, Some(high)) => high.before_on(tag).unwrap(),
                (None, None) => OrderKey::first().after_on(tag).unwrap(),
            };
            assert!(low.as_ref().is_none_or(|low| low < &new), "{new}");
            assert!(high.as_ref().is_none_or(|high| &new < high), "{new}");
            longest = longest.max(new.as_str().len());
            made.push(new);
        }
        let mut sorted = made.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), made.len(), "one key for each replica");
        let at = keys.partition_point(|key| key < &sorted[0]);
        keys.splice(at..at, sorted);
    }
    assert!(keys.windows(2).all(|pair| pair[0] < pair[1]));
    assert!(longest <= 48, "longest key: {longest}");
}
