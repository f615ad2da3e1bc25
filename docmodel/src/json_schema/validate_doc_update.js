function (newDoc, oldDoc) {
  // Written by docmodel (`Repo::ensure_validation`) from the JSON Schemas of a model (`docmodel::json_schemas`),
  // which `model` holds: a document of the model's type must have the shape of its schema version, whichever
  // client writes it. Other documents, deletions, and docmodel's revision copies pass untouched.
  var model = DOCMODEL_MODEL;

  function fail(path, message) {
    throw({ forbidden: "docmodel: " + (path || "(the document)") + ": " + message });
  }

  function envelopeOf(doc) {
    if (model.root) {
      var root = doc[model.type];
      return root !== null && typeof root === "object" && !Array.isArray(root) ? root : null;
    }
    if (model.meta) {
      var meta = doc[model.meta];
      return meta !== null && typeof meta === "object" && !Array.isArray(meta) ? meta : null;
    }
    return doc;
  }

  function ownType(envelope) {
    return model.root ? envelope !== null : envelope !== null && model.types.indexOf(envelope[model.names.type]) >= 0;
  }

  if (newDoc._deleted) return;
  var envelope = envelopeOf(newDoc);
  if (!ownType(envelope) || envelope[model.names.copyOf] !== undefined) return;

  var version = envelope[model.names.schema];
  if (version === undefined) {
    if (model.unversioned === null) fail(model.paths.schema, "is missing: every `" + model.type + "` document carries its schema version");
    version = model.unversioned;
  }
  var parts = typeof version === "string" && /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?$/.exec(version);
  if (!parts) fail(model.paths.schema, "= " + JSON.stringify(version) + " is not a schema version (major.minor)");
  var major = Number(parts[1]);
  if (major > model.current) {
    fail(model.paths.schema, "= " + version + " is newer than any version of `" + model.type + "` (" + model.currentText + " is current)");
  }

  if (oldDoc && !oldDoc._deleted) {
    var before = envelopeOf(oldDoc);
    if (ownType(before) && before[model.names.copyOf] === undefined) {
      var was = before[model.names.ver] === undefined ? 1 : before[model.names.ver];
      var now = envelope[model.names.ver] === undefined ? 1 : envelope[model.names.ver];
      if (typeof was === "number" && typeof now === "number" && now < was) {
        fail(model.paths.ver, "= " + now + " goes back from " + was + ": a revision count only grows");
      }
    }
  }

  // The schema of the version the model reads the document as: within its major, the newest listed at or
  // below its version, else the oldest listed (an older minor the current model reads as it is).
  var schema = null;
  var minor = Number(parts[2]), patch = parts[4] === undefined ? 0 : Number(parts[4]);
  for (var v = 0; v < model.schemas.length; v++) {
    var listed = model.schemas[v];
    if (listed.major !== major) continue;
    if (listed.minor < minor || (listed.minor === minor && listed.patch <= patch)) {
      schema = listed.schema;
      break;
    }
    schema = listed.schema;
  }
  if (schema) check(schema, newDoc, "", schema);

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
      case "object": return value !== null && typeof value === "object" && !Array.isArray(value);
    }
    return false;
  }

  function same(a, b) {
    return JSON.stringify(a) === JSON.stringify(b);
  }

  function member(path, name) {
    return path ? path + "." + name : name;
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

  function check(s, value, path, root) {
    if (s === true || s === undefined) return;
    if (s === false) fail(path, "is not allowed here");
    if (s.$ref) return check(root.$defs[s.$ref.replace("#/$defs/", "")], value, path, root);
    if (s.anyOf) {
      for (var a = 0; a < s.anyOf.length; a++) if (passes(s.anyOf[a], value, path, root)) return;
      fail(path, "has none of the shapes it may have (" + kind(value) + ")");
    }
    if (s["const"] !== undefined && !same(value, s["const"])) fail(path, "must be " + JSON.stringify(s["const"]));
    if (s["enum"]) {
      var found = false;
      for (var e = 0; e < s["enum"].length; e++) if (same(value, s["enum"][e])) found = true;
      if (!found) fail(path, "must be one of " + JSON.stringify(s["enum"]));
    }
    if (s.not && passes(s.not, value, path, root)) fail(path, "must not be " + JSON.stringify(value));
    if (s.type !== undefined) {
      var types = [].concat(s.type), typed = false;
      for (var t = 0; t < types.length; t++) if (is(types[t], value)) typed = true;
      if (!typed) fail(path, "must be " + types.join(" or ") + ", not " + kind(value));
    }
    if (typeof value === "number") {
      if (s.minimum !== undefined && value < s.minimum) fail(path, "= " + value + " is below " + s.minimum);
      if (s.maximum !== undefined && value > s.maximum) fail(path, "= " + value + " is above " + s.maximum);
    }
    if (typeof value === "string") {
      if (s.pattern !== undefined && !new RegExp(s.pattern).test(value)) fail(path, "= " + JSON.stringify(value) + " does not match " + s.pattern);
      // In characters, as JSON Schema counts them, not UTF-16 units.
      var length = value.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, "_").length;
      if (s.minLength !== undefined && length < s.minLength) fail(path, "is shorter than " + s.minLength);
      if (s.maxLength !== undefined && length > s.maxLength) fail(path, "is longer than " + s.maxLength);
    }
    if (Array.isArray(value)) {
      var prefix = s.prefixItems || [];
      for (var i = 0; i < value.length; i++) {
        check(i < prefix.length ? prefix[i] : s.items, value[i], path + "[" + i + "]", root);
      }
      if (s.minItems !== undefined && value.length < s.minItems) fail(path, "has fewer than " + s.minItems + " items");
      if (s.maxItems !== undefined && value.length > s.maxItems) fail(path, "has more than " + s.maxItems + " items");
    }
    if (is("object", value)) {
      var required = s.required || [];
      for (var r = 0; r < required.length; r++) {
        if (value[required[r]] === undefined) fail(member(path, required[r]), "is missing");
      }
      var properties = s.properties || {};
      for (var name in value) {
        if (!Object.prototype.hasOwnProperty.call(value, name)) continue;
        if (Object.prototype.hasOwnProperty.call(properties, name)) check(properties[name], value[name], member(path, name), root);
        else if (s.additionalProperties !== undefined) check(s.additionalProperties, value[name], member(path, name), root);
      }
    }
  }
}
