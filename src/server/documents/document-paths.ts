const HANDLED = /^(?:\/e\/[^/?]*)?\/(?:platform|sso)(?:[/?]|$)/;

/** Whether a request URL is the Document service's or its token endpoint's (`/platform/…`, `/sso/…`, per environment too). */
export const isDocumentServiceUrl = (url: string): boolean => HANDLED.test(url);
