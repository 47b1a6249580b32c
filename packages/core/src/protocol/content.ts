/**
 * Content parts (design §5 "Images and files"): what a caller may send instead of a plain string,
 * and the references the log keeps in their place. The bytes of an image or a file are stored once
 * in the store's blob table, addressed by their SHA-256; the log holds only the reference, so the
 * log stays small and a leg resumed anywhere builds the same request from the log and the blobs.
 */
import { z } from "zod";

/** A piece of text. Sanitized and framed exactly as a plain string input would be. */
export interface TextPart {
  type: "text";
  text: string;
}

/**
 * The data of an image or a file part: the bytes, the bytes base64-encoded (standard alphabet,
 * padding optional), or a `URL`. A URL is passed to the provider only when the provider says it
 * takes URLs of that media type; Sema fetches it only when the host asked (`fetchUrls`).
 */
export type ContentData = Uint8Array | string | URL;

/** An image, e.g. `{ type: "image", data: pngBytes, mediaType: "image/png" }`. */
export interface ImagePart {
  type: "image";
  /** The bytes, base64 text or a URL (see `ContentData`). */
  data: ContentData;
  /** An IANA media type under `image/`. */
  mediaType: string;
}

/** A file (a PDF, a text document, audio …), passed to the provider as data, never as instructions. */
export interface FilePart {
  type: "file";
  /** The bytes, base64 text or a URL (see `ContentData`). */
  data: ContentData;
  /** An IANA media type, e.g. `application/pdf`. */
  mediaType: string;
  filename?: string;
}

/** One part of an objective or an input: `string | ContentPart[]` is what every ingress takes. */
export type ContentPart = TextPart | ImagePart | FilePart;

const mediaType = z.string().regex(/^[\w.+-]+\/[\w.+*-]+$/, "a media type such as image/png");

/** The reference to stored bytes: their SHA-256 (lowercase hex), media type and size. */
export const blobAttachmentSchema = z.strictObject({
  type: z.enum(["image", "file"]),
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  mediaType,
  size: z.number().int().nonnegative(),
  filename: z.string().exactOptional(),
});

/** A URL passed through to the provider (never fetched by Sema). */
export const urlAttachmentSchema = z.strictObject({
  type: z.enum(["image", "file"]),
  url: z.url(),
  mediaType,
  filename: z.string().exactOptional(),
});

/** An image or file part as the log records it: a blob reference or a URL. */
export const attachmentSchema = z.union([blobAttachmentSchema, urlAttachmentSchema]);

/** One part of a user transcript entry: its framed text, or an attachment. */
export const userPartSchema = z.union([
  z.strictObject({ type: z.literal("text"), text: z.string() }),
  attachmentSchema,
]);

/** An image or file part whose bytes are in the store's blob table. */
export type BlobAttachment = z.infer<typeof blobAttachmentSchema>;
/** An image or file part given as a URL. */
export type UrlAttachment = z.infer<typeof urlAttachmentSchema>;
/** An image or file part as the log records it. */
export type Attachment = BlobAttachment | UrlAttachment;
/** One part of a user transcript entry, as recorded: exact text bytes, or an attachment. */
export type UserPart = TextPart | Attachment;
