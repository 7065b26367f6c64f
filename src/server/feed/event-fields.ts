/** What the index keeps of an event. `endTime` is undefined while the event is open. */
export interface EventFields {
  readonly hi: number;
  readonly lo: number;
  readonly startTime: number;
  readonly endTime: number | undefined;
  readonly eventType: string;
  readonly entityId: string | undefined;
}
