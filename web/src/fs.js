// An in-memory file system shared by the toolchain's two runtimes:
// the compiler (GOOS=wasip1) sees it through @bjorn3/browser_wasi_shim's
// PreopenDirectory, the linker and the cell programs (GOOS=js) through the
// Node.js-style callback API that Go's syscall/fs_js.go calls on
// globalThis.fs. Both work on one tree of the shim's Directory and File
// objects, so a file the compiler writes is the file the linker reads, with
// no copy.

import { Directory, File } from "./browser_wasi_shim/index.js";

const S_IFIFO = 0o010000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;

// The flag values Go's syscall package reads from fs.constants (Linux's).
export const constants = {
  O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, O_CREAT: 0o100, O_EXCL: 0o200,
  O_TRUNC: 0o1000, O_APPEND: 0o2000, O_DIRECTORY: 0o200000,
};

function fsError(code, path) {
  const err = new Error(`${code}: ${path}`);
  err.code = code;
  return err;
}

// splitPath returns the components of an absolute, cleaned path.
function splitPath(cwd, path) {
  const full = path.startsWith("/") ? path : `${cwd}/${path}`;
  const parts = [];
  for (const c of full.split("/")) {
    if (c === "" || c === ".") continue;
    if (c === "..") parts.pop();
    else parts.push(c);
  }
  return parts;
}

// A Device is a file whose reads and writes go to code instead of bytes:
// the display pipes of a cell program. write(bytes) consumes bytes;
// read(length, callback) calls callback(bytes) when some are available
// (an empty array is the end of the stream).
//
// NodeFS implements the subset of Node's fs module that Go's syscall
// package (GOOS=js) uses, over root, a browser_wasi_shim Directory.
export class NodeFS {
  constructor(root, { cwd = "/", stdout = () => {}, stderr = () => {} } = {}) {
    this.root = root;
    this.cwd = cwd;
    this.constants = constants;
    this.out = { 1: stdout, 2: stderr };
    this.devices = new Map(); // absolute path → Device
    // /dev/null, which programs open to discard output (os.DevNull).
    this.devices.set("/dev/null", { write() {}, read(length, cb) { cb(new Uint8Array(0)); } });
    this.fds = new Map(); // fd → { node, path, pos, append, device }
    this.nextFd = 3;
    this.ino = new WeakMap();
    this.nextIno = 1;
  }

  // node returns the node at path, or undefined.
  node(path) {
    let n = this.root;
    for (const c of splitPath(this.cwd, path)) {
      if (!(n instanceof Directory)) return undefined;
      n = n.contents.get(c);
      if (n === undefined) return undefined;
    }
    return n;
  }

  // parent returns the directory that holds path and the last component.
  parent(path) {
    const parts = splitPath(this.cwd, path);
    const name = parts.pop();
    let n = this.root;
    for (const c of parts) {
      n = n instanceof Directory ? n.contents.get(c) : undefined;
      if (n === undefined) throw fsError("ENOENT", path);
    }
    if (!(n instanceof Directory)) throw fsError("ENOTDIR", path);
    if (name === undefined) throw fsError("EISDIR", path);
    return { dir: n, name };
  }

  // writeFile and readFile are for the worker's own use.
  writeFile(path, data) {
    const parts = splitPath(this.cwd, path);
    let n = this.root;
    for (const c of parts.slice(0, -1)) {
      let next = n.contents.get(c);
      if (next === undefined) {
        next = new Directory(new Map());
        n.contents.set(c, next);
      }
      n = next;
    }
    const f = new File(new Uint8Array(0));
    f.data = data instanceof Uint8Array ? data : new TextEncoder().encode(data);
    n.contents.set(parts[parts.length - 1], f);
    return f;
  }

  readFile(path) {
    const n = this.node(path);
    if (!(n instanceof File)) throw fsError("ENOENT", path);
    return n.data;
  }

  inode(n) {
    let i = this.ino.get(n);
    if (i === undefined) {
      i = this.nextIno++;
      this.ino.set(n, i);
    }
    return i;
  }

  statOf(n, device) {
    const isDir = n instanceof Directory;
    const mode = device ? S_IFIFO | 0o600 : isDir ? S_IFDIR | 0o755 : S_IFREG | 0o644;
    const size = isDir || device ? 0 : n.data.byteLength;
    const now = Date.now();
    return {
      dev: 1, ino: this.inode(n), mode, nlink: 1, uid: 0, gid: 0, rdev: 0, size,
      blksize: 4096, blocks: Math.ceil(size / 512), atimeMs: now, mtimeMs: now, ctimeMs: now,
      isDirectory: () => isDir,
    };
  }

  abs(path) {
    return "/" + splitPath(this.cwd, path).join("/");
  }

  // The Node.js API. Every method calls its callback exactly once.

  writeSync(fd, buf) {
    const out = this.out[fd];
    if (out) {
      out(buf.slice());
      return buf.length;
    }
    const f = this.fds.get(fd);
    if (!f) throw fsError("EBADF", String(fd));
    return this.writeAt(f, buf, null);
  }

  writeAt(f, buf, position) {
    if (f.device) {
      f.device.write(buf.slice());
      return buf.length;
    }
    const file = f.node;
    let at = position ?? (f.append ? file.data.byteLength : f.pos);
    const end = at + buf.length;
    if (end > file.data.byteLength) {
      // Grow geometrically (the linker writes in small chunks), in a buffer
      // of the file's own: file data may be a view into a shared bundle.
      if (file.growable && end <= file.data.buffer.byteLength) {
        file.data = new Uint8Array(file.data.buffer, 0, end);
      } else {
        const cap = Math.max(end, 2 * file.data.byteLength, 4096);
        const grown = new Uint8Array(new ArrayBuffer(cap), 0, end);
        grown.set(file.data);
        file.data = grown;
        file.growable = true;
      }
    }
    file.data.set(buf, at);
    if (position === null) f.pos = end;
    return buf.length;
  }

  write(fd, buf, offset, length, position, cb) {
    try {
      const chunk = buf.subarray(offset, offset + length);
      if (this.out[fd]) return cb(null, this.writeSync(fd, chunk));
      const f = this.fds.get(fd);
      if (!f) return cb(fsError("EBADF", String(fd)));
      cb(null, this.writeAt(f, chunk, position));
    } catch (err) {
      cb(err);
    }
  }

  read(fd, buf, offset, length, position, cb) {
    const f = this.fds.get(fd);
    if (!f) return cb(fsError("EBADF", String(fd)));
    if (f.device) {
      f.device.read(length, (bytes) => {
        buf.set(bytes, offset);
        cb(null, bytes.length);
      });
      return;
    }
    if (f.node instanceof Directory) return cb(fsError("EISDIR", f.path));
    const data = f.node.data;
    const at = position ?? f.pos;
    const n = Math.max(0, Math.min(length, data.byteLength - at));
    buf.set(data.subarray(at, at + n), offset);
    if (position === null) f.pos = at + n;
    cb(null, n);
  }

  open(path, flags, mode, cb) {
    try {
      const abs = this.abs(path);
      const device = this.devices.get(abs);
      if (device) {
        const fd = this.nextFd++;
        this.fds.set(fd, { node: device, path: abs, pos: 0, device });
        return cb(null, fd);
      }
      let n = this.node(path);
      if (n !== undefined && flags & constants.O_CREAT && flags & constants.O_EXCL) {
        return cb(fsError("EEXIST", path));
      }
      if (n === undefined) {
        if (!(flags & constants.O_CREAT)) return cb(fsError("ENOENT", path));
        const { dir, name } = this.parent(path);
        n = new File(new Uint8Array(0));
        dir.contents.set(name, n);
      } else if (n instanceof File && flags & constants.O_TRUNC) {
        n.data = new Uint8Array(0);
      }
      if (flags & constants.O_DIRECTORY && !(n instanceof Directory)) return cb(fsError("ENOTDIR", path));
      const fd = this.nextFd++;
      this.fds.set(fd, { node: n, path: abs, pos: 0, append: !!(flags & constants.O_APPEND) });
      cb(null, fd);
    } catch (err) {
      cb(err);
    }
  }

  close(fd, cb) {
    const f = this.fds.get(fd);
    if (!f) return cb(fsError("EBADF", String(fd)));
    this.fds.delete(fd);
    if (f.device && f.device.close) f.device.close();
    cb(null);
  }

  fstat(fd, cb) {
    if (this.out[fd] || fd === 0) {
      return cb(null, { ...this.statOf(this.root, false), mode: 0o020620, isDirectory: () => false });
    }
    const f = this.fds.get(fd);
    if (!f) return cb(fsError("EBADF", String(fd)));
    cb(null, this.statOf(f.node, f.device));
  }

  stat(path, cb) {
    const device = this.devices.get(this.abs(path));
    if (device) return cb(null, this.statOf(device, device));
    const n = this.node(path);
    if (n === undefined) return cb(fsError("ENOENT", path));
    cb(null, this.statOf(n, null));
  }

  lstat(path, cb) {
    this.stat(path, cb);
  }

  readdir(path, cb) {
    const n = this.node(path);
    if (n === undefined) return cb(fsError("ENOENT", path));
    if (!(n instanceof Directory)) return cb(fsError("ENOTDIR", path));
    cb(null, [...n.contents.keys()]);
  }

  mkdir(path, perm, cb) {
    try {
      const { dir, name } = this.parent(path);
      if (dir.contents.has(name)) return cb(fsError("EEXIST", path));
      dir.contents.set(name, new Directory(new Map()));
      cb(null);
    } catch (err) {
      cb(err);
    }
  }

  unlink(path, cb) {
    try {
      const { dir, name } = this.parent(path);
      const n = dir.contents.get(name);
      if (n === undefined) return cb(fsError("ENOENT", path));
      if (n instanceof Directory) return cb(fsError("EISDIR", path));
      dir.contents.delete(name);
      cb(null);
    } catch (err) {
      cb(err);
    }
  }

  rmdir(path, cb) {
    try {
      const { dir, name } = this.parent(path);
      const n = dir.contents.get(name);
      if (n === undefined) return cb(fsError("ENOENT", path));
      if (!(n instanceof Directory)) return cb(fsError("ENOTDIR", path));
      if (n.contents.size > 0) return cb(fsError("ENOTEMPTY", path));
      dir.contents.delete(name);
      cb(null);
    } catch (err) {
      cb(err);
    }
  }

  rename(from, to, cb) {
    try {
      const src = this.parent(from);
      const n = src.dir.contents.get(src.name);
      if (n === undefined) return cb(fsError("ENOENT", from));
      const dst = this.parent(to);
      src.dir.contents.delete(src.name);
      dst.dir.contents.set(dst.name, n);
      cb(null);
    } catch (err) {
      cb(err);
    }
  }

  ftruncate(fd, length, cb) {
    const f = this.fds.get(fd);
    if (!f || !(f.node instanceof File)) return cb(fsError("EBADF", String(fd)));
    const data = new Uint8Array(length);
    data.set(f.node.data.subarray(0, Math.min(length, f.node.data.byteLength)));
    f.node.data = data;
    cb(null);
  }

  truncate(path, length, cb) {
    this.open(path, constants.O_WRONLY, 0, (err, fd) => {
      if (err) return cb(err);
      this.ftruncate(fd, length, (err2) => this.close(fd, () => cb(err2)));
    });
  }

  fsync(fd, cb) { cb(null); }
  chmod(path, mode, cb) { this.exists(path, cb); }
  fchmod(fd, mode, cb) { cb(this.fds.has(fd) ? null : fsError("EBADF", String(fd))); }
  chown(path, uid, gid, cb) { this.exists(path, cb); }
  fchown(fd, uid, gid, cb) { cb(null); }
  lchown(path, uid, gid, cb) { this.exists(path, cb); }
  utimes(path, atime, mtime, cb) { this.exists(path, cb); }
  exists(path, cb) { cb(this.node(path) === undefined ? fsError("ENOENT", path) : null); }
  link(path, link, cb) { cb(fsError("ENOSYS", link)); }
  symlink(path, link, cb) { cb(fsError("ENOSYS", link)); }
  readlink(path, cb) { cb(fsError("EINVAL", path)); }
}

// processShim is what Go's syscall package (GOOS=js) reads from
// globalThis.process: a working directory and no real user. argv0 "node"
// is how Go's net/http for js/wasm chooses its own transport over the
// net package's in-memory network rather than the browser's fetch (it
// does so under Node.js for the same reason: a cell's clients must reach
// the servers the cell itself started, in memory).
export function processShim(fs) {
  return {
    getuid: () => -1, getgid: () => -1, geteuid: () => -1, getegid: () => -1,
    getgroups: () => [], pid: 1, ppid: 0, umask: () => 0o022, argv0: "node",
    cwd: () => fs.cwd,
    chdir: (dir) => {
      const n = fs.node(dir);
      if (!(n instanceof Directory)) throw fsError(n === undefined ? "ENOENT" : "ENOTDIR", dir);
      fs.cwd = fs.abs(dir);
    },
  };
}
