// The part of encoding/gob that GoNB's display pipes speak: a streaming
// decoder for any value the program's gonbui sends (protocol.DisplayData,
// with interface values inside), and an encoder for the one message the
// kernel sends back, the acknowledgement of gonbui.Sync
// (protocol.CommValue{Address: "#gonbui/sync_ack", Value: id}).
//
// The wire format is encoding/gob's (see its package documentation):
// messages are a length and a type id, a negative id defines a type.

const T_BOOL = 1, T_INT = 2, T_UINT = 3, T_FLOAT = 4, T_BYTES = 5, T_STRING = 6, T_COMPLEX = 7, T_INTERFACE = 8;
// The types that describe types, defined by encoding/gob itself.
const T_WIRETYPE = 16, T_ARRAYTYPE = 17, T_COMMONTYPE = 18, T_SLICETYPE = 19, T_STRUCTTYPE = 20, T_FIELDTYPE = 21, T_FIELDSLICE = 22, T_MAPTYPE = 23;
// gobEncoderType (a struct of one CommonType) only appears inside a
// wireType, so its number here is this decoder's own.
const T_GOBENCODERTYPE = 24;

const builtin = new Map([
  [T_WIRETYPE, { struct: [["ArrayT", T_ARRAYTYPE], ["SliceT", T_SLICETYPE], ["StructT", T_STRUCTTYPE], ["MapT", T_MAPTYPE], ["GobEncoderT", T_GOBENCODERTYPE], ["BinaryMarshalerT", T_GOBENCODERTYPE], ["TextMarshalerT", T_GOBENCODERTYPE]] }],
  [T_ARRAYTYPE, { struct: [["CommonType", T_COMMONTYPE], ["Elem", T_INT], ["Len", T_INT]] }],
  [T_COMMONTYPE, { struct: [["Name", T_STRING], ["Id", T_INT]] }],
  [T_SLICETYPE, { struct: [["CommonType", T_COMMONTYPE], ["Elem", T_INT]] }],
  [T_STRUCTTYPE, { struct: [["CommonType", T_COMMONTYPE], ["Field", T_FIELDSLICE]] }],
  [T_FIELDTYPE, { struct: [["Name", T_STRING], ["Id", T_INT]] }],
  [T_FIELDSLICE, { slice: T_FIELDTYPE }],
  [T_MAPTYPE, { struct: [["CommonType", T_COMMONTYPE], ["Key", T_INT], ["Elem", T_INT]] }],
  [T_GOBENCODERTYPE, { struct: [["CommonType", T_COMMONTYPE]] }],
]);

export class GobError extends Error {}

// Incomplete is thrown when the bytes pushed so far end inside a message.
class Incomplete extends Error {}

// Reader reads a gob stream: a sequence of messages, each a length and
// that many bytes. Reads stay inside the current message; a value may go
// on into the next message only where encoding/gob's decoder allows it
// (after a type defined inside an interface value).
class Reader {
  constructor(bytes) {
    this.b = bytes;
    this.i = 0;
    this.end = 0; // end of the current message
  }
  beginMessage() {
    const save = this.end;
    this.end = this.b.length;
    try {
      const n = Number(this.uint());
      if (this.i + n > this.b.length) throw new Incomplete();
      this.end = this.i + n;
    } catch (err) {
      if (err instanceof GobError) err = new Incomplete();
      this.end = save;
      throw err;
    }
  }
  byte() {
    if (this.i >= this.end) throw new GobError("gob: unexpected end of message");
    return this.b[this.i++];
  }
  uint() {
    const first = this.byte();
    if (first < 0x80) return first;
    const n = 256 - first;
    if (n > 8) throw new GobError(`gob: uint of ${n} bytes`);
    let v = 0n;
    for (let k = 0; k < n; k++) v = (v << 8n) | BigInt(this.byte());
    return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  }
  int() {
    const u = this.uint();
    if (typeof u === "bigint") return u & 1n ? ~(u >> 1n) : u >> 1n;
    // Not with 32-bit bitwise operators: u may exceed 2^31.
    return u % 2 === 1 ? -(u - 1) / 2 - 1 : u / 2;
  }
  float() {
    let u = BigInt(this.uint());
    // gob sends the float's bits byte-reversed.
    let r = 0n;
    for (let k = 0; k < 8; k++) {
      r = (r << 8n) | (u & 0xffn);
      u >>= 8n;
    }
    const view = new DataView(new ArrayBuffer(8));
    view.setBigUint64(0, r);
    return view.getFloat64(0);
  }
  bytes() {
    const n = Number(this.uint());
    if (this.i + n > this.end) throw new GobError("gob: byte slice longer than its message");
    const out = this.b.slice(this.i, this.i + n);
    this.i += n;
    return out;
  }
  string() {
    return new TextDecoder().decode(this.bytes());
  }
}

// Decoder turns the bytes of a gob stream, pushed in pieces as they come,
// into the values it carries. Types become plain JavaScript: structs are
// objects of their non-zero fields, maps with string keys objects (other
// maps Map), byte slices Uint8Array, interfaces { type: registered name,
// value }, integers numbers (BigInt beyond 2^53).
export class Decoder {
  constructor(onValue) {
    this.onValue = onValue;
    this.types = new Map(builtin);
    this.pending = new Uint8Array(0);
  }

  push(chunk) {
    const joined = new Uint8Array(this.pending.length + chunk.length);
    joined.set(this.pending);
    joined.set(chunk, this.pending.length);
    const r = new Reader(joined);
    let done = 0;
    while (done < joined.length) {
      r.i = done;
      let v;
      try {
        v = this.top(r);
      } catch (err) {
        if (err instanceof Incomplete) break;
        throw err;
      }
      done = r.i;
      if (v !== undefined) this.onValue(v);
    }
    this.pending = joined.slice(done);
  }

  // typeSequence reads type definitions up to a type id, as encoding/gob's
  // decodeTypeSequence does.
  typeSequence(r, inInterface) {
    for (;;) {
      if (r.i === r.end) r.beginMessage();
      const id = r.int();
      if (id >= 0) return id;
      this.types.set(-id, wireToType(this.value(r, T_WIRETYPE)));
      if (r.i < r.end) {
        if (!inInterface) throw new GobError("gob: extra data after a type definition");
        r.uint(); // the count of a delimited value that follows
      }
    }
  }

  // top reads one top-level value, or only type definitions (undefined).
  top(r) {
    r.beginMessage();
    const id = this.typeSequence(r, false);
    const t = this.types.get(id);
    if (!t) throw new GobError(`gob: value of undefined type ${id}`);
    if (!t.struct && r.uint() !== 0) throw new GobError("gob: singleton value without its zero field number");
    const v = this.value(r, id);
    if (r.i !== r.end) throw new GobError("gob: extra data after a value");
    return v;
  }

  value(r, id) {
    switch (id) {
      case T_BOOL: return r.uint() !== 0;
      case T_INT: return r.int();
      case T_UINT: return r.uint();
      case T_FLOAT: return r.float();
      case T_BYTES: return r.bytes();
      case T_STRING: return r.string();
      case T_COMPLEX: return [r.float(), r.float()];
      case T_INTERFACE: return this.iface(r);
    }
    const t = this.types.get(id);
    if (!t) throw new GobError(`gob: undefined type ${id}`);
    if (t.struct) {
      const out = {};
      let field = -1;
      for (;;) {
        const delta = r.uint();
        if (delta === 0) return out;
        field += delta;
        const f = t.struct[field];
        if (!f) throw new GobError(`gob: field ${field} of a ${t.struct.length}-field struct`);
        out[f[0]] = this.value(r, f[1]);
      }
    }
    if (t.slice !== undefined || t.array !== undefined) {
      const n = Number(r.uint());
      const out = new Array(n);
      for (let k = 0; k < n; k++) out[k] = this.value(r, t.slice ?? t.array);
      return out;
    }
    if (t.map) {
      const n = Number(r.uint());
      const [kt, vt] = t.map;
      const out = kt === T_STRING ? {} : new Map();
      for (let k = 0; k < n; k++) {
        const key = this.value(r, kt);
        const v = this.value(r, vt);
        if (out instanceof Map) out.set(key, v);
        else out[key] = v;
      }
      return out;
    }
    if (t.opaque) return r.bytes();
    throw new GobError(`gob: type ${id} has no known shape`);
  }

  iface(r) {
    const name = r.string();
    if (name === "") return null;
    const id = this.typeSequence(r, true);
    r.uint(); // the value's length: it follows in full
    const t = this.types.get(id);
    if (!(t && t.struct) && r.uint() !== 0) throw new GobError("gob: interface value without its zero field number");
    return { type: name, value: this.value(r, id) };
  }
}

function wireToType(w) {
  if (w.StructT) return { name: w.StructT.CommonType?.Name, struct: (w.StructT.Field || []).map((f) => [f.Name, f.Id]) };
  if (w.SliceT) return { name: w.SliceT.CommonType?.Name, slice: w.SliceT.Elem };
  if (w.ArrayT) return { name: w.ArrayT.CommonType?.Name, array: w.ArrayT.Elem, len: w.ArrayT.Len };
  if (w.MapT) return { name: w.MapT.CommonType?.Name, map: [w.MapT.Key, w.MapT.Elem] };
  if (w.GobEncoderT || w.BinaryMarshalerT || w.TextMarshalerT) return { opaque: true };
  throw new GobError("gob: empty type definition");
}

class Writer {
  constructor() {
    this.b = [];
  }
  uint(v) {
    if (v < 0x80) {
      this.b.push(v);
      return;
    }
    const bytes = [];
    let x = BigInt(v);
    while (x > 0n) {
      bytes.unshift(Number(x & 0xffn));
      x >>= 8n;
    }
    this.b.push(256 - bytes.length, ...bytes);
  }
  int(v) {
    this.uint(v < 0 ? -2 * v - 1 : 2 * v);
  }
  string(s) {
    const bytes = new TextEncoder().encode(s);
    this.uint(bytes.length);
    this.b.push(...bytes);
  }
  // message frames the bytes written so far as one message.
  message() {
    const body = this.b;
    const head = new Writer();
    head.uint(body.length);
    return new Uint8Array([...head.b, ...body]);
  }
}

// The type id this encoder gives protocol.CommValue; any id from 65 on
// is a user type.
const COMMVALUE_ID = 65;

// SyncAcks encodes the stream the kernel writes to a program's
// GONB_PIPE_BACK: the type of protocol.CommValue once, then one
// CommValue{Address: "#gonbui/sync_ack", Value: id} per call of ack.
export class SyncAcks {
  constructor() {
    this.defined = false;
  }

  ack(id) {
    const out = [];
    if (!this.defined) {
      const w = new Writer();
      w.int(-COMMVALUE_ID);
      // wireType{StructT: &structType{CommonType{Name, Id}, Field: [...]}}
      w.uint(3); // field 2 (StructT)
      w.uint(1); // structType.CommonType
      w.uint(1); w.string("CommValue");
      w.uint(1); w.int(COMMVALUE_ID);
      w.uint(0);
      w.uint(1); // structType.Field
      const fields = [["Address", T_STRING], ["Request", T_BOOL], ["Value", T_INTERFACE]];
      w.uint(fields.length);
      for (const [name, id] of fields) {
        w.uint(1); w.string(name);
        w.uint(1); w.int(id);
        w.uint(0);
      }
      w.uint(0); // end of structType
      w.uint(0); // end of wireType
      out.push(w.message());
      this.defined = true;
    }
    const w = new Writer();
    w.int(COMMVALUE_ID);
    w.uint(1); w.string("#gonbui/sync_ack"); // Address
    w.uint(2); // Value (field 2; Request is false and not sent)
    w.string("int");
    w.int(T_INT);
    const v = new Writer();
    v.uint(0); // singleton field number
    v.int(id);
    w.uint(v.b.length);
    w.b.push(...v.b);
    w.uint(0); // end of struct
    out.push(w.message());
    const total = out.reduce((n, m) => n + m.length, 0);
    const joined = new Uint8Array(total);
    let at = 0;
    for (const m of out) {
      joined.set(m, at);
      at += m.length;
    }
    return joined;
  }
}
