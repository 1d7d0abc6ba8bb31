/** The success envelope. Business failures are thrown as BizError and rendered by errors.plugin.ts. */
export function ok<T>(data: T): { errorCode: "Success"; errorMsg: null; data: T } {
  return { errorCode: "Success", errorMsg: null, data };
}

export function okList<T>(page: { count: number; results: T[] }): { errorCode: "Success"; errorMsg: null; data: { count: number; results: T[] } } {
  return ok({ count: page.count, results: page.results });
}

/** A page of rows as a `{count, results}` envelope, each row through its view mapper. */
export function okPage<Row, View>(page: { count: number; results: Row[] }, toView: (row: Row) => View) {
  return okList({ count: page.count, results: page.results.map((row) => toView(row)) });
}
