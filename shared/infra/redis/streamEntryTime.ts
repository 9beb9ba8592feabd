/** When Redis added a stream entry: the milliseconds its id (`<ms>-<sequence>`) starts with. */
export function streamEntryTime(entryId: string): number {
  return Number(entryId.split('-')[0]);
}
