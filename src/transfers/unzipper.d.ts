// The part of unzipper (the zip parser exceljs reads workbooks with) that spreadsheet.ts uses; it ships no types.
declare module 'unzipper' {
  const unzipper: { Parse(opts?: { forceStream?: boolean }): NodeJS.ReadWriteStream };
  export default unzipper;
}
