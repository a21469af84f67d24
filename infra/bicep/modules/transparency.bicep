// The transparency log's signing key and anchors (docs/transparency-log.md).
// A Key Vault holds an EC P-256 key that the app signs checkpoints with; the
// private key never leaves the vault. A storage account of its own keeps
// every checkpoint under a version-level immutability (WORM) policy. The
// app's identity may sign with the key (Key Vault Crypto User) and write
// blobs to the container (Storage Blob Data Contributor). While the policy
// holds, no one can overwrite or delete an anchored checkpoint. Lock the
// policy once the deployment is verified: a locked policy can be extended
// but never shortened or removed.

@description('Key Vault name (3-24 characters).')
param vaultName string

@description('Name of the anchors storage account (3-24 lowercase letters and digits).')
param storageName string

param location string
param tags object = {}

@description('Principal (object) id of the app identity.')
param appPrincipalId string

@description('Days every anchored checkpoint stays immutable from its creation.')
param anchorRetentionDays int = 3650

@description('Unlocked (for testing; can be removed) or Locked (final).')
@allowed([
  'Unlocked'
  'Locked'
])
param anchorPolicyState string = 'Unlocked'

@description('Whether the app reads the secret log-signing-ed25519 of the vault: an Ed25519 note signer key, created by the operator after deployment, that signs every checkpoint beside the vault key, since witnesses accept Ed25519 log keys only.')
param ed25519 bool = false

// Built-in Azure role definition ids.
var keyVaultCryptoUser = '12338af0-0e69-4776-bea7-57ae8d297424'
var storageBlobDataContributor = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'
var keyVaultSecretsUser = '4633458b-17de-408a-b874-0445c86b69e6'

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: vaultName
  location: location
  tags: tags
  properties: {
    tenantId: tenant().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 90
    enablePurgeProtection: true
  }
}

resource signing 'Microsoft.KeyVault/vaults/keys@2023-07-01' = {
  parent: vault
  name: 'log-signing'
  properties: {
    kty: 'EC'
    curveName: 'P-256'
    keyOps: [
      'sign'
      'verify'
    ]
  }
}

resource keyUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(signing.id, appPrincipalId, keyVaultCryptoUser)
  scope: signing
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', keyVaultCryptoUser)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// The Ed25519 key is a secret (Key Vault keys cannot be Ed25519), which
// the app's identity may read. The vault holds nothing else that is
// secret, so the role is the vault's: the secret need not exist yet.
resource ed25519Reader 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (ed25519) {
  name: guid(vault.id, appPrincipalId, keyVaultSecretsUser)
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', keyVaultSecretsUser)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource anchorsAccount 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: storageName
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: 'Standard_LRS'
  }
  properties: {
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    allowBlobPublicAccess: false
    allowSharedKeyAccess: false
    immutableStorageWithVersioning: {
      enabled: true
      immutabilityPolicy: {
        immutabilityPeriodSinceCreationInDays: anchorRetentionDays
        state: anchorPolicyState
        allowProtectedAppendWrites: false
      }
    }
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: anchorsAccount
  name: 'default'
  properties: {
    isVersioningEnabled: true
  }
}

resource anchors 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: 'checkpoints'
  properties: {
    publicAccess: 'None'
  }
}

resource anchorsWriter 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(anchors.id, appPrincipalId, storageBlobDataContributor)
  scope: anchors
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageBlobDataContributor)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// The key's identifier, a URL naming it (not key material), without a
// version, so the app signs with whichever version the vault holds when it
// starts.
var signingPath = 'keys/${signing.name}'

@description('The signing key\'s URL: LOG_SIGNING_KEY_ID.')
output signingUrl string = '${vault.properties.vaultUri}${signingPath}'


// The Ed25519 key's identifier, a URL naming it (not key material).
var ed25519Path = 'secrets/log-signing-ed25519'

@description('LOG_ED25519_SECRET_ID: the Ed25519 signer\'s URL, empty without one.')
output ed25519Url string = ed25519 ? '${vault.properties.vaultUri}${ed25519Path}' : ''

@description('The anchors container: LOG_ANCHOR_URL.')
output anchorsUrl string = '${anchorsAccount.properties.primaryEndpoints.blob}${anchors.name}'
