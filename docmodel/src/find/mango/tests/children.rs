//! A parent's items (`Child`) read through the indexes the derive declares for them.

use serde_json::{Value, json};

use super::super::super::test_models::{Bookmark, Order};
use super::super::{Mango, find_bodies};
use crate::find::Dialect;
use crate::{Child, DocModel};

#[test]
fn a_parents_items_are_read_through_the_index_over_the_parent_and_the_order() {
    let indexes: Vec<&str> = Bookmark::INDEXES.iter().map(|index| index.name()).collect();
    assert_eq!(indexes, ["folder,place", "folder", "place"]);
    let parent = Order::key(7);
    let one = Bookmark::children_query(std::slice::from_ref(&parent));
    assert!(Mango::check(&one).is_ok());
    let bodies = find_bodies(&one).unwrap();
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    // The items without a place, by key, through the parent's own index: only its rows.
    assert_eq!(bodies[0]["selector"]["folder"], json!({"$eq": "order::7"}));
    assert_eq!(
        bodies[0]["sort"],
        json!([{"_type": "asc"}, {"folder": "asc"}])
    );
    assert_eq!(
        bodies[0]["use_index"],
        json!([
            "_design/docmodel_bookmark_folder",
            "docmodel_bookmark_folder"
        ])
    );
    assert_eq!(bodies[1]["selector"]["folder"], json!({"$eq": "order::7"}));
    assert_eq!(
        bodies[1]["sort"],
        json!([{"_type": "asc"}, {"folder": "asc"}, {"place": "asc"}])
    );
    assert_eq!(
        bodies[1]["use_index"],
        json!([
            "_design/docmodel_bookmark_folder_place",
            "docmodel_bookmark_folder_place"
        ])
    );
    // Several parents: through the order's own index, by the order alone.
    let two = Bookmark::children_query(&[parent, Order::key(8)]);
    assert!(Mango::check(&two).is_ok());
    let bodies = find_bodies(&two).unwrap();
    assert_eq!(
        bodies[1]["selector"]["folder"],
        json!({"$in": ["order::7", "order::8"]})
    );
    assert_eq!(
        bodies[1]["sort"],
        json!([{"_type": "asc"}, {"place": "asc"}])
    );
    assert_eq!(
        bodies[1]["use_index"],
        json!(["_design/docmodel_bookmark_place", "docmodel_bookmark_place"])
    );
    // A `Ref` always names a parent: no item is at the top, and nothing is asked.
    assert_eq!(
        find_bodies(&Bookmark::roots_query()).unwrap(),
        Vec::<Value>::new()
    );
    assert_eq!(
        find_bodies(&Bookmark::children_query(&[])).unwrap(),
        Vec::<Value>::new()
    );
}
