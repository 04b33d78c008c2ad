/** The signed URLs of the asset service's listener (fs uploads, internal downloads): the platform's signer. */
export { createUrlSigner, randomSigningSecret, type UrlSigner } from '@catalog/platform';
