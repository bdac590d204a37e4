/** The token of an `Authorization: Bearer <token>` header, or undefined when there is none or it has another form. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer +([^\s]+) *$/i.exec(header);
  return match?.[1];
}
