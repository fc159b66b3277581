// The part of papaparse the app uses (the package ships no types): CSV artifacts' tables
// (web/app/artifacts.js). The document worker reads its own copy from web/vendor/ by URL.
declare module 'papaparse' {
  const Papa: {
    parse(text: string, options?: { skipEmptyLines?: boolean }): { data: unknown[] };
    unparse(data: unknown[][], options?: { newline?: string }): string;
  };
  export default Papa;
}
