/** The sample trip task the time-travel tests record (it lives with the conformance suite that records it too). */
export { pinned, recordTrip, tripModel, tripTools } from "../testing/sample-trip.ts";
