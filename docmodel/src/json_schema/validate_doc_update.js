function (newDoc, oldDoc) {
  // Written by docmodel (`Repo::ensure_validation`) from what its reader reads by (`model`, generated from the
  // model's own constants): a document the server takes as the model's must be one docmodel reads, whichever
  // client writes it. Other documents, deletions, and docmodel's revision copies pass untouched.
  //
  // In order: is the document the model's (its type, an alias, a legacy name, none at the model's key shape
  // where the model adopts untyped documents, the root attribute); is it a revision copy (the marker naming
  // the document whose copy key it is under); does every value read (depth, numbers, text); which model of
  // the chain reads its schema version, as docmodel routes it; does its `_ver` only grow; and does it have
  // the shape that model reads (its JSON Schema, or its envelope's where a JSON step reads the body). A
  // refusal names the field and the rule, never the value: it reaches server logs.
  var model = JSON.parse(DOCMODEL_MODEL);

  // The largest whole number a double holds exactly, and with every smaller one.
  var SAFE = 9007199254740991;
  // A UTF-16 surrogate without its other half: not text (docmodel reads UTF-8).
  var LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;
  var VERSION = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:\.(0|[1-9][0-9]*))?$/;
  var WHOLE = /^(0|[1-9][0-9]*)$/;
  var TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?(Z|z|[+-][0-9]{2}:[0-9]{2})?$/;
  // The four forms the uuid crate parses: simple, hyphenated, braced, URN.
  var UUID = /^(?:[0-9a-fA-F]{32}|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}|\{[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\}|urn:uuid:[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12})$/;

  // The keywords `json_schema` writes, and the annotations: a schema with another (a `StoredShape` of the
  // application's using `oneOf`, say) is one the function cannot check, and it refuses rather than pass.
  var KNOWN = ["type", "const", "enum", "properties", "required", "additionalProperties", "items", "prefixItems",
    "minItems", "maxItems", "minimum", "maximum", "exclusiveMaximum", "pattern", "minLength", "maxLength", "format",
    "anyOf", "allOf", "not", "$ref", "$defs", "$schema", "title", "description"];

  function fail(path, rule) {
    throw({ forbidden: "docmodel: " + (path || "(the document)") + ": " + rule });
  }

  function has(object, name) {
    return Object.prototype.hasOwnProperty.call(object, name);
  }

  function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  function member(path, name) {
    return path ? path + "." + name : name;
  }

  function couchdb(name) {
    return model.couchdb.indexOf(name) >= 0;
  }

  // The document's own top-level names: without CouchDB's bookkeeping (`_id`, `_rev`, ...).
  function names(doc) {
    var found = [];
    for (var name in doc) if (has(doc, name) && !couchdb(name)) found.push(name);
    return found;
  }

  // The object holding `doc`'s envelope as `level` lays it out: `undefined` where it has none (no meta
  // object; no root attribute); `null` where the place holds what is not an object.
  function envelopeOf(doc, level) {
    if (level.layout === "root") {
      if (!has(doc, level.type)) return undefined;
      return isObject(doc[level.type]) ? doc[level.type] : null;
    }
    if (level.layout === "meta") {
      if (!has(doc, level.meta)) return undefined;
      return isObject(doc[level.meta]) ? doc[level.meta] : null;
    }
    return doc;
  }

  // The value of envelope field `field` under its name or its legacy name; `undefined` where it has neither.
  // Under both it is read twice, which docmodel refuses: `strict` refuses it here, else it reads as neither.
  function field(envelope, level, key, strict) {
    var spellings = level.fields[key];
    if (!spellings || !envelope) return undefined;
    var value, found = 0;
    for (var i = 0; i < spellings.length; i++) {
      if (has(envelope, spellings[i])) {
        value = envelope[spellings[i]];
        found++;
      }
    }
    if (found > 1) {
      if (strict) fail(level.paths[key], "is given under its name and its legacy name (`" + spellings.join("` and `") + "`): a document holds it once");
      return undefined;
    }
    return value;
  }

  // `doc` with each envelope field of `level` under its own name, as docmodel reads it: the copy the schema
  // of that model is checked against.
  function renamed(doc, level) {
    var envelope = envelopeOf(doc, level);
    if (!envelope) return doc;
    var moved = {}, any = false;
    for (var key in level.fields) {
      if (!has(level.fields, key)) continue;
      var spellings = level.fields[key];
      if (spellings.length > 1 && has(envelope, spellings[1])) {
        field(envelope, level, key, true);
        any = true;
      }
    }
    if (!any) return doc;
    for (var name in envelope) if (has(envelope, name)) moved[name] = envelope[name];
    for (key in level.fields) {
      if (!has(level.fields, key)) continue;
      spellings = level.fields[key];
      if (spellings.length > 1 && has(moved, spellings[1])) {
        moved[spellings[0]] = moved[spellings[1]];
        delete moved[spellings[1]];
      }
    }
    if (level.layout === "flat" || level.layout === "plain") return moved;
    var copy = {};
    for (name in doc) if (has(doc, name)) copy[name] = doc[name];
    copy[level.layout === "root" ? level.type : level.meta] = moved;
    return copy;
  }

  if (newDoc._deleted) return;

  // 1. Whether the document is the model's, as docmodel's reader decides it. At the model's key shape, a
  // document of another type must still show its type to the reader (reading it by key then says whose it
  // is): its envelope where the layout puts it, its type as text, every value readable (step 3).
  var keyShape = new RegExp(model.key);
  var keyParts = typeof newDoc._id === "string" ? keyShape.exec(newDoc._id) : null;
  var atKey = keyParts !== null;
  var adopts = model.untyped && atKey;
  var envelope = envelopeOf(newDoc, model);
  var own = true;
  if (model.layout === "root") {
    if (envelope === undefined) {
      own = false;
    } else {
      if (names(newDoc).length !== 1) fail(model.type, "is the root attribute: a document of the `root` layout holds no other top-level member");
      if (envelope === null) fail(model.type, "must be an object: the document under its root attribute");
      for (var r = 0; r < model.rootTypeNames.length; r++) {
        if (has(envelope, model.rootTypeNames[r])) {
          fail(member(model.type, model.rootTypeNames[r]), "is the type, which the root attribute names: the root object holds no type field");
        }
      }
    }
  } else {
    if (envelope === null) {
      if (!atKey) return;
      fail(model.meta, "must be an object: the document's envelope");
    }
    var type = field(envelope, model, "type", false);
    if (type === undefined && envelope && model.fields.type.length > 1 &&
        has(envelope, model.fields.type[0]) && has(envelope, model.fields.type[1])) {
      // The type under both names: the model's if either is.
      if (model.types.indexOf(envelope[model.fields.type[0]]) < 0 &&
          model.types.indexOf(envelope[model.fields.type[1]]) < 0 && !atKey) return;
      field(envelope, model, "type", true);
    }
    if (type === undefined) {
      own = adopts;
    } else if (typeof type !== "string") {
      if (!atKey) return;
      fail(model.paths.type, "must be a string: the document's type");
    } else if (model.types.indexOf(type) < 0) {
      own = false;
    }
  }
  if (!own && !atKey) return;

  // 2. A revision copy: the marker names a document of the model, whose copy key (`<key><d>v<d><n>`) the copy
  // is under, which is not itself a key of the model's shape (that is read as a document).
  var marker = own ? field(envelope, model, "copyOf", true) : undefined;
  if (marker !== undefined && marker !== null) {
    if (typeof marker !== "string") fail(model.paths.copyOf, "must be a string or null: docmodel's revision-copy marker, the key of the document copied");
    var copyPrefix = marker + model.delimiter + "v" + model.delimiter;
    var id = newDoc._id;
    if (!atKey && keyShape.test(marker) && id.length > copyPrefix.length &&
        id.substring(0, copyPrefix.length) === copyPrefix && WHOLE.test(id.substring(copyPrefix.length))) return;
  }

  // 3. Every value reads: nesting, numbers, text.
  function limits(value, path, depth) {
    if (typeof value === "string") {
      if (LONE.test(value)) fail(path, "holds a lone UTF-16 surrogate, which is not text");
    } else if (typeof value === "number") {
      if (!isFinite(value)) fail(path, "is a number past what a double holds");
    } else if (value !== null && typeof value === "object") {
      if (depth > model.maxDepth) fail(path, "nests deeper than " + model.maxDepth + " levels");
      if (Array.isArray(value)) {
        for (var i = 0; i < value.length; i++) limits(value[i], path + "[" + i + "]", depth + 1);
      } else {
        for (var name in value) {
          if (!has(value, name)) continue;
          if (LONE.test(name)) fail(path, "holds a name with a lone UTF-16 surrogate, which is not text");
          limits(value[name], member(path, name), depth + 1);
        }
      }
    }
  }
  var top = names(newDoc);
  for (var t = 0; t < top.length; t++) {
    if (LONE.test(top[t])) fail("", "holds a name with a lone UTF-16 surrogate, which is not text");
    limits(newDoc[top[t]], top[t], 2);
  }
  if (!own) return;

  // 4. The schema version, and the model of the chain that reads it, routed as docmodel routes it.
  // Whole numbers as text: a version's numbers go up to 2^64 - 1, past what a double tells apart.
  function compareNumber(a, b) {
    if (a.length !== b.length) return a.length < b.length ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }

  function compare(a, b) {
    for (var i = 0; i < 3; i++) {
      var order = compareNumber(a[i], b[i]);
      if (order !== 0) return order;
    }
    return 0;
  }

  var schemaPath = model.paths.schema;
  var text = field(envelope, model, "schema", true);
  var version;
  if (text === undefined) {
    if (model.unversioned === null) fail(schemaPath, "is missing: every `" + model.type + "` document carries its schema version");
    version = model.unversioned;
  } else {
    var parts = typeof text === "string" && VERSION.exec(text);
    if (!parts) fail(schemaPath, "is not a schema version (major.minor or major.minor.patch, whole numbers without leading zeros)");
    version = [parts[1], parts[2], parts[3] === undefined ? "0" : parts[3]];
    for (var p = 0; p < 3; p++) {
      if (compareNumber(version[p], "18446744073709551615") > 0) fail(schemaPath, "is not a schema version: a number of it is past 2^64 - 1");
    }
  }

  // The model that reads the document (`read`), or the one whose JSON step does (`step`).
  function route(level) {
    if (compareNumber(version[0], level.current[0]) > 0) {
      fail(schemaPath, "is newer than any version of `" + level.type + "` this program knows (" + level.currentText + " is current)");
    }
    if (compare(version, level.current) >= 0) return { level: level, read: true };
    var chain = level.chain, at = -1, first = -1;
    for (var i = 0; i < chain.length; i++) {
      if (chain[i].from[0] !== version[0]) continue;
      if (first < 0) first = i;
      if (compare(chain[i].from, version) <= 0) at = i;
    }
    if (version[0] === level.current[0] && at < 0) return { level: level, read: true };
    if (at < 0) at = first;
    if (at < 0 && chain.length > 0 && chain[0].typed && compare(version, chain[0].from) < 0) at = 0;
    if (at < 0) fail(schemaPath, "is a version `" + level.type + "` does not read: the model " + level.reads);
    return chain[at].typed ? route(chain[at].typed) : { level: level, read: false };
  }
  var reader = route(model);

  // 5. `_ver` only grows (a revision copy's key names its version: copies were passed above).
  function verOf(doc) {
    if (!doc || doc._deleted) return undefined;
    var before = envelopeOf(doc, model);
    if (!before) return undefined;
    var was = field(before, model, "ver", false);
    return was === undefined ? 1 : was;
  }
  var was = verOf(oldDoc), now = verOf(newDoc);
  if (typeof was === "number" && typeof now === "number" && now < was) {
    fail(model.paths.ver, "goes back: a revision count only grows");
  }

  // 6. The shape the model that reads it reads: its schema, or its envelope's where a JSON step reads it.
  var schema = reader.read ? reader.level.schema : reader.level.envelope;
  check(schema, renamed(newDoc, reader.level), "", schema);

  // 7. At the model's key, the body's whole-number key fields give that key, as a read by key checks (of a
  // document the current model reads as it is: a step may move the key's fields). Past 2^53 a double stands
  // for many numbers: there the function compares what it can, the doubles.
  if (keyParts && reader.read && reader.level === model) {
    var body = model.layout === "root" ? envelope : newDoc;
    for (var k = 0; k < model.keyParts.length; k++) {
      var stored = model.keyParts[k];
      var part = body && stored !== null ? body[stored] : undefined;
      if (typeof part !== "number") continue;
      var given = Math.abs(part) <= SAFE ? String(part) === keyParts[k + 1] : Number(keyParts[k + 1]) === part;
      if (!given) fail(model.layout === "root" ? member(model.type, stored) : stored, "is not the value the document's key holds: a document is stored under the key its fields give");
    }
  }

  function kind(value) {
    if (value === null) return "null";
    if (Array.isArray(value)) return "an array";
    if (typeof value === "object") return "an object";
    return "a " + typeof value;
  }

  function is(type, value) {
    switch (type) {
      case "null": return value === null;
      case "boolean": return typeof value === "boolean";
      case "string": return typeof value === "string";
      case "number": return typeof value === "number" && isFinite(value);
      case "integer": return typeof value === "number" && isFinite(value) && Math.floor(value) === value;
      case "array": return Array.isArray(value);
      case "object": return isObject(value);
    }
    return false;
  }

  function same(a, b) {
    return JSON.stringify(a) === JSON.stringify(b);
  }

  function passes(s, value, path, root) {
    try {
      check(s, value, path, root);
      return true;
    } catch (err) {
      if (err && err.forbidden) return false;
      throw err;
    }
  }

  function daysIn(year, month) {
    if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
    return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  }

  // A date-time as docmodel's parser reads it: `YYYY-MM-DD[T ]HH:MM:SS[.f]` and a zone (`Z`, `±HH:MM`), each
  // part in its range, the instant within the years 0000 to 9999.
  function isTime(text) {
    var m = TIME.exec(text);
    if (!m || m[8] === undefined) return false;
    var year = Number(m[1]), month = Number(m[2]), day = Number(m[3]);
    var hour = Number(m[4]), minute = Number(m[5]), second = Number(m[6]);
    if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false;
    if (hour > 23 || minute > 59 || second > 59) return false;
    var offset = 0;
    if (m[8] !== "Z" && m[8] !== "z") {
      var hours = Number(m[8].substring(1, 3)), minutes = Number(m[8].substring(4, 6));
      if (hours > 23 || minutes > 59) return false;
      offset = (hours * 60 + minutes) * (m[8].charAt(0) === "-" ? -1 : 1);
    }
    var millis = m[7] === undefined ? 0 : Number((m[7] + "00").substring(0, 3));
    var at = daysFromCivil(year, month, day) * 86400000 + ((hour * 60 + minute - offset) * 60 + second) * 1000 + millis;
    return at >= -62167219200000 && at < 253402300800000;
  }

  // Days from 1970-01-01 to a date of the proleptic Gregorian calendar, as docmodel counts them.
  function daysFromCivil(year, month, day) {
    var y = month <= 2 ? year - 1 : year;
    var era = Math.floor(y / 400);
    var yearOfEra = y - era * 400;
    var dayOfYear = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1;
    var dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
    return era * 146097 + dayOfEra - 719468;
  }

  function check(s, value, path, root) {
    if (s === true || s === undefined) return;
    if (s === false) fail(path, "is not allowed here");
    for (var keyword in s) {
      if (has(s, keyword) && KNOWN.indexOf(keyword) < 0) fail(path, "has a schema keyword the server's function does not check (" + keyword + ")");
    }
    if (s.$ref !== undefined && s.$ref.indexOf("#/$defs/") !== 0) fail(path, "has a schema reference the server's function does not follow");
    if (s.$ref) return check(root.$defs[s.$ref.replace("#/$defs/", "")], value, path, root);
    if (s.allOf) {
      // Each a field a document must hold under one of its names (`anyOf` of `required`), as the schema writes it.
      for (var g = 0; g < s.allOf.length; g++) {
        var names = [], group = s.allOf[g].anyOf, only = isObject(s.allOf[g]) && Array.isArray(group);
        for (var k in s.allOf[g]) if (has(s.allOf[g], k) && k !== "anyOf") only = false;
        for (var n = 0; only && n < group.length; n++) {
          for (var q in group[n]) if (has(group[n], q) && q !== "required") only = false;
          names = names.concat(group[n].required || []);
        }
        // Another use of `allOf` (an application's `StoredShape`) is one the function does not check.
        if (!only || names.length === 0) fail(path, "has a schema keyword the server's function does not check (allOf)");
        var held = !isObject(value);
        for (var h = 0; h < names.length; h++) if (isObject(value) && has(value, names[h])) held = true;
        if (!held) fail(member(path, names[0]), "is missing (under any of " + JSON.stringify(names) + ")");
      }
    }
    if (s.anyOf) {
      for (var a = 0; a < s.anyOf.length; a++) if (passes(s.anyOf[a], value, path, root)) return;
      fail(path, "has none of the shapes it may have");
    }
    if (s["const"] !== undefined && !same(value, s["const"])) fail(path, "must be " + JSON.stringify(s["const"]));
    if (s["enum"]) {
      var found = false;
      for (var e = 0; e < s["enum"].length; e++) if (same(value, s["enum"][e])) found = true;
      if (!found) fail(path, "must be one of " + JSON.stringify(s["enum"]));
    }
    if (s.not && passes(s.not, value, path, root)) fail(path, "is a value its type does not hold");
    if (s.type !== undefined) {
      var types = [].concat(s.type), typed = false;
      for (var t = 0; t < types.length; t++) if (is(types[t], value)) typed = true;
      if (!typed) fail(path, "must be " + types.join(" or ") + ", not " + kind(value));
    }
    if (typeof value === "number") {
      // Past 2^53 a double stands for many whole numbers: a bound there is one the function cannot tell a
      // number on it from one just past it, so it refuses both (`exclusiveMaximum` says so exactly).
      if (s.minimum !== undefined && (value < s.minimum || (value === s.minimum && value < -SAFE))) fail(path, "is below the range its type holds");
      if (s.maximum !== undefined && (value > s.maximum || (value === s.maximum && value > SAFE))) fail(path, "is above the range its type holds");
      if (s.exclusiveMaximum !== undefined && value >= s.exclusiveMaximum) fail(path, "is above the range its type holds");
    }
    if (typeof value === "string") {
      if (s.pattern !== undefined && !new RegExp(s.pattern).test(value)) fail(path, "does not match " + s.pattern);
      // In characters, as JSON Schema counts them, not UTF-16 units.
      var length = value.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, "_").length;
      if (s.minLength !== undefined && length < s.minLength) fail(path, "is shorter than " + s.minLength);
      if (s.maxLength !== undefined && length > s.maxLength) fail(path, "is longer than " + s.maxLength);
      if (s.format === "date-time" && !isTime(value)) fail(path, "is not a date-time docmodel reads (YYYY-MM-DDTHH:MM:SS[.fff] and a zone, in the years 0000 to 9999)");
      if (s.format === "uuid" && !UUID.test(value)) fail(path, "is not a UUID");
    }
    if (Array.isArray(value)) {
      var prefix = s.prefixItems || [];
      for (var i = 0; i < value.length; i++) {
        check(i < prefix.length ? prefix[i] : s.items, value[i], path + "[" + i + "]", root);
      }
      if (s.minItems !== undefined && value.length < s.minItems) fail(path, "has fewer than " + s.minItems + " items");
      if (s.maxItems !== undefined && value.length > s.maxItems) fail(path, "has more than " + s.maxItems + " items");
    }
    if (isObject(value)) {
      var required = s.required || [];
      for (var r = 0; r < required.length; r++) {
        if (!has(value, required[r])) fail(member(path, required[r]), "is missing");
      }
      var properties = s.properties || {};
      for (var name in value) {
        if (!has(value, name)) continue;
        if (has(properties, name)) check(properties[name], value[name], member(path, name), root);
        else if (s.additionalProperties !== undefined) check(s.additionalProperties, value[name], member(path, name), root);
      }
    }
  }
}
