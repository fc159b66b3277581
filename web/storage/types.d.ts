/** Shapes shared by the storage layer. */

export type EntryKind = 'file' | 'directory';

export interface FileStat {
  kind: EntryKind;
  /** Bytes for files, 0 for directories. */
  size: number;
  /** Last modification time (ms since epoch) when known. */
  mtimeMs?: number;
}

export interface DirEntry {
  name: string;
  kind: EntryKind;
}

/** One read of `readFiles`: the whole file, or (`tail`) its last `tail` bytes. */
export interface ReadRequest {
  path: string;
  tail?: number;
}

/** What one read of `readFiles` got: bytes and the file's size. */
export interface FileRead {
  bytes: Uint8Array;
  size: number;
}

export interface WriteOptions {
  atomic?: boolean;
}

/**
 * The one file-system interface of Clawser. Paths are relative, '/'-separated, with no
 * '.' or '..' segments. Implementations: OPFS (browser) and memory (tests).
 */
export interface FileSystem {
  /** Whole file as UTF-8 text. Rejects with code `not_found` if missing. */
  readText(path: string): Promise<string>;
  /**
   * The whole file as a Blob read lazily by the browser (OPFS: its File, never copied into
   * memory; a snapshot that goes unreadable if the file is replaced). Optional: only the root
   * file system needs it (the local models). Rejects with code `not_found` if missing.
   */
  openFile?(path: string): Promise<Blob>;
  /** Bytes [start, end) of a file (end defaults to the file's size). */
  readBytes(path: string, range?: { start?: number; end?: number }): Promise<Uint8Array>;
  /**
   * The last `maxBytes` bytes of a file and its size, from one read (so they agree while
   * another tab appends). OPFS may lock the file against writers for that read: only for files
   * whose writers wait or retry (a conversation's files). Optional: `readTail()` in
   * append-log.js falls back to stat + readBytes. Rejects with code `not_found` if missing.
   */
  readTail?(path: string, maxBytes: number): Promise<{ bytes: Uint8Array; size: number }>;
  /**
   * Several reads answered together, in order: each a whole file, or (`tail`) its last bytes as
   * `readTail` reads them. A missing file (for a tail also a folder in its place) gives null.
   * OPFS answers them in one round trip to its worker instead of one per file, and may lock each
   * file against writers for its read, as `readTail` does: only for a conversation's files,
   * whose writers wait or retry. Optional: `readFiles()` in read-files.js falls back to one call each.
   */
  readFiles?(requests: ReadRequest[]): Promise<(FileRead | null)[]>;
  /**
   * Replaces the file atomically (temp file, then move); parents are created.
   * `{atomic: false}` writes in place (about a third cheaper on OPFS): only for new files of
   * content-addressed data whose readers verify it (git objects).
   */
  write(path: string, data: string | Uint8Array, options?: WriteOptions): Promise<void>;
  /** Appends at the end without rewriting what is there; creates the file if needed. */
  append(path: string, data: string | Uint8Array): Promise<void>;
  /** Shortens a file to `size` bytes (used to drop a torn last line). */
  truncate(path: string, size: number): Promise<void>;
  list(path: string): Promise<DirEntry[]>;
  /** null when nothing is at `path`. */
  stat(path: string): Promise<FileStat | null>;
  mkdir(path: string): Promise<void>;
  /** Deletes a file or a directory with everything in it; missing paths are fine. */
  delete(path: string): Promise<void>;
  /** Moves/renames a file or directory; replaces an existing file at `to`. */
  move(from: string, to: string): Promise<void>;
}

/**
 * Clawser's own small settings: `clawser_*` keys holding JSON. The app's is DurableConfig (OPFS,
 * written in the background: `flush()` resolves once every change made before it is stored);
 * LocalConfig (localStorage) serves tests and the first view's cache.
 */
export interface ConfigStore {
  /** The parsed value, or `fallback` when missing or unreadable. */
  get<T>(key: string, fallback: T): unknown | T;
  set(key: string, value: unknown): void;
  remove(key: string): void;
  /** The keys starting with `prefix` (itself a `clawser_` prefix). */
  keys(prefix: string): string[];
  /** Every entry as [key, raw JSON text]. */
  entries(): Array<[string, string]>;
  /** Stores raw JSON text as it is. */
  setRaw(key: string, raw: string): void;
  /**
   * Changes a value from what it is (`fn` gets undefined when missing; returns undefined to
   * remove it). DurableConfig makes the change again on what is stored when it writes, so a
   * change another tab made meanwhile is built on, never undone.
   */
  update(key: string, fn: (value: unknown) => unknown): void;
  /** Resolves once the changes made before the call are stored; rejects with why not. */
  flush(): Promise<void>;
}

/** `protected`: a write into one of Clawser's own folders through a view that may not change them.
 * `damaged`: a file Clawser keeps is damaged and is kept as it is until the person sets it aside. */
export type StorageErrorCode =
  | 'not_found'
  | 'quota'
  | 'invalid_path'
  | 'not_a_directory'
  | 'busy'
  | 'unavailable'
  | 'io'
  | 'protected'
  | 'damaged';
